package repro

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/report"
)

// Claim is one row of a notebook's reproduction table: a paper's claim, the paper's number or statement,
// what we measured, and the verdict. A row whose verdict comes from a stated test carries the interval and
// the number of seeds it rests on (Tested builds such a row).
type Claim struct {
	Key      string `json:"key"` // stable identifier; recording a key again replaces its row
	Claim    string `json:"claim"`
	Paper    string `json:"paper"`
	Measured string `json:"measured"`
	Verdict  string `json:"verdict"` // Reproduced, NotReproduced, Inconclusive (older rows: free text)
	// CILow and CIHigh bound the measured quantity (or the difference the test is about) at 95%; Seeds is
	// the number of independent seeds behind it (0: not a tested row).
	CILow  float64 `json:"ci_low,omitempty"`
	CIHigh float64 `json:"ci_high,omitempty"`
	Seeds  int     `json:"seeds,omitempty"`
	Why    string  `json:"why,omitempty"` // why ours differs from the paper, or what the test was
}

// The verdicts a tested claim can get.
const (
	Reproduced    = "reproduced"     // the interval lies wholly on the side the paper claims
	NotReproduced = "not reproduced" // the interval lies wholly on the other side
	Inconclusive  = "inconclusive"   // the interval straddles the boundary
)

// Verdict decides a claim from a 95% interval [lo, hi] of the measured quantity, against a test stated
// before the run: the paper claims the quantity is above boundary (above = true) or below it.
func Verdict(lo, hi, boundary float64, above bool) string {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return Inconclusive
	case above && lo > boundary, !above && hi < boundary:
		return Reproduced
	case above && hi < boundary, !above && lo > boundary:
		return NotReproduced
	}
	return Inconclusive
}

// Tested is a claim row decided by Verdict: the measured text is "mean [lo, hi]" (formatted with format,
// e.g. "%.3g"), and the interval and seed count are kept.
func Tested(c Claim, mean, lo, hi float64, seeds int, format string, boundary float64, above bool) Claim {
	c.Measured = fmt.Sprintf(format+" ["+format+", "+format+"]", mean, lo, hi)
	c.CILow, c.CIHigh, c.Seeds = lo, hi, seeds
	c.Verdict = Verdict(lo, hi, boundary, above)
	return c
}

// ClaimsDirEnv names the folder for claims files (make notebooks sets it to build/notebooks/claims, so
// concurrent runs do not share files and the runner can collect every notebook's table); when unset the
// system temporary folder is used.
const ClaimsDirEnv = "DPRL_CLAIMS_DIR"

// ClaimsFile is where a notebook keeps its reproduction rows between cells (GoNB runs every cell as a new
// program): a JSON file named after the notebook in $DPRL_CLAIMS_DIR or the system temporary folder.
func ClaimsFile(notebook string) string {
	dir := os.Getenv(ClaimsDirEnv)
	if dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "dprl-claims-"+notebook+".json")
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

// ClaimRows turns claims into table rows: claim, paper, measured, seeds, verdict, why.
func ClaimRows(claims []Claim) [][]string {
	rows := make([][]string, len(claims))
	for i, c := range claims {
		seeds := ""
		if c.Seeds > 0 {
			seeds = fmt.Sprint(c.Seeds)
		}
		rows[i] = []string{c.Claim, c.Paper, c.Measured, seeds, c.Verdict, c.Why}
	}
	return rows
}

// CSVColumns are the columns of WriteClaimsCSV.
var CSVColumns = []string{"notebook", "claim", "paper", "measured", "ci_low", "ci_high", "seeds", "verdict"}

// WriteClaimsCSV writes every notebook's claims (notebook → rows, in the order of names) as one tidy CSV.
// A row without an interval has empty ci_low and ci_high.
func WriteClaimsCSV(w io.Writer, names []string, claims map[string][]Claim) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	for _, nb := range names {
		for _, c := range claims[nb] {
			lo, hi := "", ""
			if c.Seeds > 0 {
				lo, hi = strconv.FormatFloat(c.CILow, 'g', 6, 64), strconv.FormatFloat(c.CIHigh, 'g', 6, 64)
			}
			if err := cw.Write([]string{nb, c.Claim, c.Paper, c.Measured, lo, hi, strconv.Itoa(c.Seeds), c.Verdict}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// CheckClaim reports what keeps a claim row from standing as a verdict: a NaN anywhere, fewer than 10
// seeds, or a verdict other than Reproduced, NotReproduced or Inconclusive (nil when it stands).
func CheckClaim(c Claim) error {
	switch {
	case strings.Contains(c.Measured, "NaN") || math.IsNaN(c.CILow) || math.IsNaN(c.CIHigh):
		return fmt.Errorf("claim %q: measured %q has a NaN", c.Key, c.Measured)
	case c.Seeds < 10:
		return fmt.Errorf("claim %q: %d seeds, want at least 10", c.Key, c.Seeds)
	case c.Verdict != Reproduced && c.Verdict != NotReproduced && c.Verdict != Inconclusive:
		return fmt.Errorf("claim %q: verdict %q is not one of %q, %q, %q", c.Key, c.Verdict, Reproduced, NotReproduced, Inconclusive)
	}
	return nil
}

// ShowClaims shows the claims a notebook recorded (ClaimsFile(notebook)) as its reproduction table.
func ShowClaims(out report.Sink, notebook string) error {
	claims, err := LoadClaims(ClaimsFile(notebook))
	if err != nil {
		return err
	}
	out.Table([]string{"claim", "paper", "measured here", "seeds", "verdict", "why"}, ClaimRows(claims))
	return nil
}
