package crosscheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Python returns the cross-check environment's interpreter (venv.sh, requirements.lock: the accountants and
// Gymnasium): $DPRL_CROSSCHECK_PYTHON, else build/crosscheck-venv/bin/python under the repository root. ok
// is false when it does not exist.
func Python() (path string, ok bool) {
	return interpreter("DPRL_CROSSCHECK_PYTHON", "crosscheck-venv")
}

// PerfPython returns the performance-anchor environment's interpreter (venv.sh perf,
// requirements-perf.lock: the cross-check environment plus PyTorch and Opacus):
// $DPRL_CROSSCHECK_PERF_PYTHON, else build/crosscheck-perf-venv/bin/python under the repository root. ok is
// false when it does not exist.
func PerfPython() (path string, ok bool) {
	return interpreter("DPRL_CROSSCHECK_PERF_PYTHON", "crosscheck-perf-venv")
}

func interpreter(envVar, venv string) (path string, ok bool) {
	p := os.Getenv(envVar)
	if p == "" {
		p = filepath.Join(Dir(), "..", "build", venv, "bin", "python")
	}
	_, err := os.Stat(p)
	return p, err == nil
}

// Dir is the directory holding ref.py.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Reference runs ref.py in mode with cases as JSON on its standard input and decodes its output into out.
func Reference(python, mode string, cases, out any) error {
	in, err := json.Marshal(cases)
	if err != nil {
		return err
	}
	cmd := exec.Command(python, filepath.Join(Dir(), "ref.py"), mode)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("crosscheck: ref.py %s: %v\n%s", mode, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("crosscheck: ref.py %s output: %v", mode, err)
	}
	return nil
}

// Num is a float64 that also decodes the JSON strings "inf", "-inf" and "nan" (ref.py's non-finite values).
type Num float64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*n = Num(math.Inf(1))
	case `"-inf"`:
		*n = Num(math.Inf(-1))
	case `"nan"`:
		*n = Num(math.NaN())
	default:
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		*n = Num(f)
	}
	return nil
}
