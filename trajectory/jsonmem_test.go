package trajectory

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc): an upper bound on the memory it
// holds at any moment.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestReadJSONMemoryBounded: on adversarial inputs ReadJSON allocates at most 4× the input (plus its 64 KiB
// window and small constants) and refuses them where they go wrong, and on valid inputs it allocates at most
// 4× the input in all (the dataset included). Before, a file of a million nested brackets held about 70×
// its size before it was refused, and the reader held the whole input besides.
func TestReadJSONMemoryBounded(t *testing.T) {
	const mb = 1 << 20
	head := `{"obs_dim": 1, "num_actions": 2, "trajectories": [{"expert": 0, "steps": [{"obs": `
	compact := func(steps int) string {
		var b strings.Builder
		b.WriteString(`{"obs_dim":1,"num_actions":2,"trajectories":[{"expert":0,"steps":[`)
		for i := range steps {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"obs":[0],"action":0,"reward":0,"next_obs":[0]}`)
		}
		b.WriteString(`]}]}`)
		return b.String()
	}
	manyTraj := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"obs_dim":1,"num_actions":2,"trajectories":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"expert":0,"steps":[{"obs":[0],"action":0,"reward":0,"next_obs":[0]}]}`)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	cases := []struct {
		name  string
		input string
		valid bool
		field string // the refused field, for the invalid inputs
	}{
		{"a million nested arrays", strings.Repeat("[", mb), false, "dataset"},
		{"nested arrays inside a step", head + strings.Repeat("[", mb), false, "trajectories[0].steps[0].obs[0]"},
		{"nested objects as trajectories", `{"trajectories": [` + strings.Repeat(`{"steps": [`, mb/12), false, "key"},
		{"an observation of a million numbers", head + "[" + strings.Repeat("0,", mb/2) + "0]", false, "trajectories[0].steps[0].obs"},
		{"a megabyte key", `{"` + strings.Repeat("a", mb) + `": 1}`, false, "key"},
		{"a megabyte number", `{"obs_dim": ` + strings.Repeat("1", mb) + `}`, false, ""},
		{"a megabyte of white space", strings.Repeat(" \n", mb/2), false, "dataset"},
		{"20 000 one-step trajectories, compact", manyTraj(20000), true, ""},
		{"one trajectory of 20 000 steps, compact", compact(20000), true, ""},
		// One-character numbers: each "0," is stored as an 8-byte float64, so the dataset alone is 4× this
		// text: the bound cannot be lower, and the reader adds only its window and one block.
		{"obs_dim 1000 of one-digit numbers", `{"obs_dim":1000,"num_actions":1,"trajectories":[{"expert":0,"steps":[` +
			strings.Repeat(`{"obs":[`+strings.Repeat("0,", 999)+`0],"action":0,"reward":0,"next_obs":[`+strings.Repeat("0,", 999)+`0]},`, 199) +
			`{"obs":[` + strings.Repeat("0,", 999) + `0],"action":0,"reward":0,"next_obs":[` + strings.Repeat("0,", 999) + `0]}]}]}`, true, ""},
	}
	for _, c := range cases {
		var err error
		n := allocated(func() { _, err = ReadJSON(strings.NewReader(c.input)) })
		ratio := float64(n) / float64(len(c.input))
		t.Logf("%s: %d bytes in, %d allocated (%.2f×): %v", c.name, len(c.input), n, ratio, err)
		if c.valid != (err == nil) {
			t.Errorf("%s: error %v", c.name, err)
		}
		var de *DataError
		if !c.valid && (!errors.As(err, &de) || c.field != "" && de.Field != c.field) {
			t.Errorf("%s: error %v, want a *DataError naming %q", c.name, err, c.field)
		}
		if n > 4*uint64(len(c.input))+256<<10 {
			t.Errorf("%s: %d bytes allocated for %d bytes of input (%.1f×)", c.name, n, len(c.input), ratio)
		}
	}
	// Written by WriteJSON, at the benchmarks' sizes.
	for _, steps := range []int{10_000, 100_000} {
		var buf bytes.Buffer
		if err := benchDataset(steps).WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		var err error
		n := allocated(func() { _, err = ReadJSON(bytes.NewReader(buf.Bytes())) })
		t.Logf("WriteJSON, %d steps: %d bytes in, %d allocated (%.2f×)", steps, buf.Len(), n, float64(n)/float64(buf.Len()))
		if err != nil || n > 4*uint64(buf.Len()) {
			t.Errorf("WriteJSON, %d steps: %d allocated for %d bytes (%v)", steps, n, buf.Len(), err)
		}
	}
}
