package trajectory

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const csvHead = "trajectory,expert,t,obs_0,action,reward,next_obs_0,terminated,truncated,prob\n"

// TestReadCSVRejectsEveryBadField feeds one bad field at a time and checks the error names the line, the
// column and the value (issue 16 item 10: t = 0.9, trajectory = -0.5 and terminated = 7 were accepted).
func TestReadCSVRejectsEveryBadField(t *testing.T) {
	good := "0,0,0,3,1,0.5,4,0,0,0.5\n"
	cases := []struct {
		name, text  string
		line        int
		field, want string
	}{
		{"fractional t", good + "0,0,0.9,4,1,0,5,0,0,0.5\n", 3, "t", "t = 0.9"},
		{"negative fractional trajectory", "-0.5,0,0,3,1,0,4,0,0,0.5\n", 2, "trajectory", "trajectory = -0.5"},
		{"terminated 7", "0,0,0,3,1,0,4,7,0,0.5\n", 2, "terminated", "terminated = 7 is not allowed: want 0 or 1"},
		{"truncated 0.5", "0,0,0,3,1,0,4,0,0.5,0.5\n", 2, "truncated", "truncated = 0.5"},
		{"terminated true", "0,0,0,3,1,0,4,true,0,0.5\n", 2, "terminated", "terminated = true"},
		{"negative trajectory", "-1,0,0,3,1,0,4,0,0,0.5\n", 2, "trajectory", "trajectory = -1"},
		{"first trajectory 1", "1,0,0,3,1,0,4,0,0,0.5\n", 2, "trajectory", "trajectory = 1"},
		{"skipped trajectory", good + "2,0,0,3,1,0,4,0,0,0.5\n", 3, "trajectory", "trajectory = 2"},
		{"duplicate trajectory", good + "1,0,0,3,1,0,4,0,0,0.5\n0,0,1,3,1,0,4,0,0,0.5\n", 4, "trajectory", "trajectory = 0"},
		{"new trajectory t 1", good + "1,0,1,3,1,0,4,0,0,0.5\n", 3, "t", "t = 1"},
		{"repeated t", good + "0,0,0,3,1,0,4,0,0,0.5\n", 3, "t", "t = 0"},
		{"negative t", "0,0,-1,3,1,0,4,0,0,0.5\n", 2, "t", "t = -1"},
		{"t 1e0", "0,0,1e0,3,1,0,4,0,0,0.5\n", 2, "t", "t = 1e0"},
		{"expert changes", good + "0,1,1,3,1,0,4,0,0,0.5\n", 3, "expert", "expert = 1"},
		{"negative expert", "0,-2,0,3,1,0,4,0,0,0.5\n", 2, "expert", "expert = -2"},
		{"fractional expert", "0,0.5,0,3,1,0,4,0,0,0.5\n", 2, "expert", "expert = 0.5"},
		{"fractional action", "0,0,0,3,0.5,0,4,0,0,0.5\n", 2, "action", "action = 0.5"},
		{"negative action", "0,0,0,3,-1,0,4,0,0,0.5\n", 2, "action", "action = -1"},
		{"NaN obs", "0,0,0,NaN,1,0,4,0,0,0.5\n", 2, "obs_0", "obs_0 = NaN is not allowed: want a finite number"},
		{"Inf next obs", "0,0,0,3,1,0,+Inf,0,0,0.5\n", 2, "next_obs_0", "next_obs_0 = +Inf"},
		{"overflowing obs", "0,0,0,1e400,1,0,4,0,0,0.5\n", 2, "obs_0", "obs_0 = 1e400"},
		{"empty obs", "0,0,0,,1,0,4,0,0,0.5\n", 2, "obs_0", `obs_0 = ""`},
		{"Inf reward", "0,0,0,3,1,-Inf,4,0,0,0.5\n", 2, "reward", "reward = -Inf"},
		{"rewards overflowing their sum", "0,0,0,3,1,1e308,4,0,0,0.5\n0,0,1,3,1,1e308,4,0,0,0.5\n", 2, "reward", "MaxRewardMass"},
		{"negative prob", "0,0,0,3,1,0,4,0,0,-0.1\n", 2, "prob", "prob = -0.1 is not allowed: want a number in [0, 1]"},
		{"NaN prob", "0,0,0,3,1,0,4,0,0,NaN\n", 2, "prob", "prob = NaN"},
		{"step after termination", "0,0,0,3,1,0,4,1,0,0.5\n0,0,1,3,1,0,4,0,0,0.5\n", 3, "trajectory", "trajectory = 0 is not allowed: want 1"},
		{"step after truncation", "0,0,0,3,1,0,4,0,1,0.5\n0,0,1,3,1,0,4,0,0,0.5\n", 3, "trajectory", "ended on the previous row"},
		{"too many fields", "0,0,0,3,1,0,4,0,0,0.5,9\n", 2, "row", "row = 11 fields"},
		{"bare quote", "0,0,0,3\"x,1,0,4,0,0,0.5\n", 2, "", "bare \""},
	}
	for _, c := range cases {
		_, err := ReadCSV(strings.NewReader(csvHead+c.text), 2)
		var de *DataError
		if !errors.As(err, &de) || de.Line != c.line || de.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a *DataError at line %d, field %q, mentioning %q", c.name, err, c.line, c.field, c.want)
		}
	}
	// The column is the byte position of the field on its line.
	_, err := ReadCSV(strings.NewReader(csvHead+"0,0,0,3,1,0,4,7,0,0.5\n"), 2)
	if de := (*DataError)(nil); !errors.As(err, &de) || de.Column != 15 {
		t.Errorf("terminated column: %v", err)
	}
	for _, n := range []int{0, -1} {
		if _, err := ReadCSV(strings.NewReader(csvHead+good), n); err == nil || !strings.Contains(err.Error(), "numActions") {
			t.Errorf("numActions = %d: %v", n, err)
		}
	}
	for _, h := range []string{"trajectory,expert,t,action,reward,terminated,truncated,prob\n", "obs_0\n", "x\n"} {
		if _, err := ReadCSV(strings.NewReader(h), 2); err == nil || !strings.Contains(err.Error(), "line 1: header") {
			t.Errorf("header %q: %v", h, err)
		}
	}
}

// TestReadJSONRejectsEveryBadField covers the JSON holes: trailing data and a second dataset (issue 16 item
// 10), misspelled, repeated or missing keys, nulls, and every value Validate checks.
func TestReadJSONRejectsEveryBadField(t *testing.T) {
	step := `{"obs": [1], "action": 0, "reward": 0.5, "next_obs": [2]}`
	ds := func(steps string) string {
		return `{"obs_dim": 1, "num_actions": 2, "trajectories": [{"expert": 0, "steps": [` + steps + `]}]}`
	}
	if _, err := ReadJSON(strings.NewReader(ds(step))); err != nil {
		t.Fatalf("good input: %v", err)
	}
	repl := func(old, new string) string { return ds(strings.Replace(step, old, new, 1)) }
	cases := []struct{ name, text, want string }{
		{"trailing garbage", ds(step) + " x", "line 1, column 137: data after the dataset"},
		{"second dataset", ds(step) + "\n" + ds(step), "line 2, column 1: data after the dataset"},
		{"empty", " \n", "empty dataset"},
		{"truncated", ds(step)[:40], "unexpected EOF"},
		{"unknown key", repl(`"action"`, `"actoin"`), `key = actoin is not allowed`},
		{"key in other case", repl(`"action"`, `"Action"`), `key = Action is not allowed`},
		{"repeated key", repl(`"action": 0`, `"action": 0, "action": 1`), "key = action is not allowed: want each key once"},
		{"null in an array", repl(`[1]`, `[1, null]`), "trajectories[0].steps[0].obs[1] = null is not allowed"},
		{"null reward", repl(`0.5`, `null`), "reward = null"},
		{"missing reward", repl(`, "reward": 0.5`, ``), "trajectories[0].steps[0].reward = null is not allowed: want a value (the field is required)"},
		{"missing action", repl(`, "action": 0`, ``), "trajectories[0].steps[0].action = null"},
		{"missing expert", strings.Replace(ds(step), `"expert": 0, `, ``, 1), "trajectories[0].expert = null"},
		{"missing obs_dim", strings.Replace(ds(step), `"obs_dim": 1, `, ``, 1), "obs_dim = null"},
		{"fractional action", repl(`"action": 0`, `"action": 0.5`), "trajectories[0].steps[0].action = 0.5 is not allowed: want an integer"},
		{"overflowing reward", repl(`0.5`, `1e400`), "reward = 1e400 is not allowed: want a finite number"},
		{"action range", repl(`"action": 0`, `"action": 2`), "trajectories[0].steps[0].action = 2 is not allowed: want [0, 1]"},
		{"negative expert", strings.Replace(ds(step), `"expert": 0`, `"expert": -1`, 1), "trajectories[0].expert = -1"},
		{"prob", repl(`"action": 0`, `"action": 0, "prob": 2`), "trajectories[0].steps[0].prob = 2"},
		{"terminated early", ds(strings.Replace(step, `"action": 0`, `"action": 0, "terminated": true`, 1) + "," + step), "trajectories[0].steps[0].terminated = true"},
		{"reward mass", ds(strings.Replace(step, "0.5", "1e308", 1) + "," + strings.Replace(step, "0.5", "-1e308", 1)), "trajectories[0].steps[0].reward = 1e+308 is not allowed: want a value keeping the dataset's Σ|reward| within MaxRewardMass"},
		{"no steps", ds(""), "trajectories[0].steps = [] is not allowed"},
		{"no trajectories", `{"obs_dim": 1, "num_actions": 2, "trajectories": []}`, "trajectories = [] is not allowed"},
		{"zero obs_dim", strings.Replace(ds(step), `"obs_dim": 1`, `"obs_dim": 0`, 1), "obs_dim = 0 is not allowed: want [1, ∞)"},
		{"zero actions", strings.Replace(ds(step), `"num_actions": 2`, `"num_actions": 0`, 1), "num_actions = 0"},
		{"not an object", `[1, 2]`, "dataset = array is not allowed"},
	}
	for _, c := range cases {
		_, err := ReadJSON(strings.NewReader(c.text))
		var de *DataError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a *DataError mentioning %q", c.name, err, c.want)
		}
	}
}

// roundTrip checks that a dataset a reader accepted is valid and survives both writers and readers.
func roundTrip(t *testing.T, d *Dataset) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatalf("a reader accepted a dataset Validate rejects: %v", err)
	}
	var c, j bytes.Buffer
	if err := d.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	fromCSV, err := ReadCSV(&c, d.NumActions)
	if err != nil {
		t.Fatalf("reading the written CSV: %v", err)
	}
	fromJSON, err := ReadJSON(&j)
	if err != nil {
		t.Fatalf("reading the written JSON: %v", err)
	}
	if !reflect.DeepEqual(fromCSV, d) || !reflect.DeepEqual(fromJSON, d) {
		t.Fatalf("the dataset changed in a round trip:\n%+v\n%+v\n%+v", d, fromCSV, fromJSON)
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte(csvHead+"0,0,0,3,1,0.5,4,0,0,0.5\n0,0,1,4,0,-1,5,1,0,1\n1,3,0,-0,1,1e-300,2,0,1,0\n"), 2)
	f.Add([]byte("trajectory,expert,t,obs_0,obs_1,action,reward,next_obs_0,next_obs_1,terminated,truncated,prob\n0,0,0,1,2,0,0,3,4,0,0,0\n"), 1)
	f.Add([]byte(csvHead+"0,0,0.9,3,1,0,4,7,0,0.5\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, numActions int) {
		d, err := ReadCSV(bytes.NewReader(data), numActions)
		if err != nil {
			if d != nil {
				t.Fatal("a dataset with an error")
			}
			return
		}
		roundTrip(t, d)
	})
}

func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"obs_dim": 1, "num_actions": 2, "trajectories": [{"expert": 0, "steps": [{"obs": [1], "action": 1, "reward": 0.5, "next_obs": [2], "terminated": true, "truncated": false, "prob": 0.25}]}]}`))
	f.Add([]byte(`{"obs_dim": 2, "num_actions": 1, "trajectories": [{"expert": 3, "steps": [{"obs": [1, -0], "action": 0, "reward": -1e300, "next_obs": [2, 1e-320]}, {"obs": [2, 1], "action": 0, "reward": 0, "next_obs": [0, 0], "truncated": true}]}]}`))
	f.Add([]byte(`{"obs_dim": 1, "num_actions": 2, "trajectories": []} {"x": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if d != nil {
				t.Fatal("a dataset with an error")
			}
			return
		}
		roundTrip(t, d)
	})
}

// TestDataErrorShortensLongValues: a megabyte-long bad field is not copied whole into the message.
func TestDataErrorShortensLongValues(t *testing.T) {
	long := strings.Repeat("é", 500000)
	_, err := ReadCSV(strings.NewReader(csvHead+"0,0,0,"+long+",1,0,4,0,0,0.5\n"), 2)
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "obs_0 = éé") {
		t.Errorf("error of %d bytes: %.200s", len(err.Error()), err)
	}
}

func TestMalformedFilesNameTheLine(t *testing.T) {
	header := "trajectory,expert,t,obs_0,action,reward,next_obs_0,terminated,truncated,prob\n"
	good := "0,0,0,3,1,0,4,0,0,0.5\n"
	cases := map[string]struct {
		text string
		line int
		msg  string
	}{
		"NaN reward":        {header + good + "0,0,1,4,1,NaN,5,0,0,0.5\n", 3, "reward"},
		"action range":      {header + good + "0,0,1,4,2,0,5,0,0,0.5\n", 3, "action = 2 is not allowed: want an integer in [0, 1]"},
		"missing column":    {header + "0,0,0,3,1,0,4,0,0\n", 2, "row = 9 fields is not allowed: want 10 fields"},
		"not a number":      {header + "0,0,0,x,1,0,4,0,0,0.5\n", 2, "obs_0"},
		"order":             {header + good + "0,0,2,4,1,0,5,0,0,0.5\n", 3, "t = 2 is not allowed: want 1"},
		"wrong header":      {"trajectory,t,obs_0\n", 1, "header"},
		"prob out of range": {header + "0,0,0,3,1,0,4,0,0,1.5\n", 2, "prob = 1.5"},
	}
	for name, c := range cases {
		_, err := ReadCSV(strings.NewReader(c.text), 2)
		var le *DataError
		if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want line %d mentioning %q", name, err, c.line, c.msg)
		}
	}
	for _, empty := range []string{"", header} {
		if _, err := ReadCSV(strings.NewReader(empty), 2); err == nil || !strings.Contains(err.Error(), "empty dataset") {
			t.Errorf("empty input %q: %v", empty, err)
		}
	}
	if _, err := ReadJSON(strings.NewReader(`{"obs_dim": 1, "num_actions": 2, "trajectories": [{"expert": 0, "steps": [{"obs": [1, 2], "action": 0, "reward": 0, "next_obs": [1]}]}]}`)); err == nil || !strings.Contains(err.Error(), "trajectories[0].steps[0].obs = 2 values is not allowed: want obs_dim = 1 values") {
		t.Errorf("mismatched observation dimension: %v", err)
	}
}
