package repro

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dprl-project/dprl/dprl/report"
)

// Claim is one row of a notebook's reproduction table: a paper's claim, the paper's number or statement,
// what we measured, and the verdict.
type Claim struct {
	Key      string `json:"key"` // stable identifier; recording a key again replaces its row
	Claim    string `json:"claim"`
	Paper    string `json:"paper"`
	Measured string `json:"measured"`
	Verdict  string `json:"verdict"` // "reproduced", "not reproduced", "partly", …
}

// ClaimsFile is where a notebook keeps its reproduction rows between cells (GoNB runs every cell as a new
// program): a JSON file named after the notebook in the system temporary folder.
func ClaimsFile(notebook string) string {
	return filepath.Join(os.TempDir(), "dprl-claims-"+notebook+".json")
}

// RecordClaims adds or replaces rows (by Key) in the claims file, keeping first-recorded order.
func RecordClaims(path string, claims ...Claim) error {
	old, err := LoadClaims(path)
	if err != nil {
		return err
	}
	for _, c := range claims {
		replaced := false
		for i := range old {
			if old[i].Key == c.Key {
				old[i], replaced = c, true
			}
		}
		if !replaced {
			old = append(old, c)
		}
	}
	b, err := json.MarshalIndent(old, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// LoadClaims reads the claims file (no file: no claims).
func LoadClaims(path string) ([]Claim, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Claim
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("repro: %s: %w", path, err)
	}
	return out, nil
}

// ClaimRows turns claims into table rows: claim, paper, measured, verdict.
func ClaimRows(claims []Claim) [][]string {
	rows := make([][]string, len(claims))
	for i, c := range claims {
		rows[i] = []string{c.Claim, c.Paper, c.Measured, c.Verdict}
	}
	return rows
}

// ShowClaims shows the claims a notebook recorded (ClaimsFile(notebook)) as its reproduction table.
func ShowClaims(out report.Sink, notebook string) error {
	claims, err := LoadClaims(ClaimsFile(notebook))
	if err != nil {
		return err
	}
	out.Table([]string{"claim", "paper", "measured here", "verdict"}, ClaimRows(claims))
	return nil
}
