package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ledgerVersion is the format of a ledger's lines.
const ledgerVersion = 1

// line is one line of a ledger: the budget (the first line) or a release.
type line struct {
	V       int    `json:"v"`
	Kind    string `json:"kind"` // "budget" or "release"
	Seq     int    `json:"seq"`  // 0 for the budget, then 1, 2, …
	Dataset string `json:"dataset"`
	Time    string `json:"time"`
	// the budget
	Records     int       `json:"records,omitempty"`
	Filter      string    `json:"filter,omitempty"`
	Orders      []float64 `json:"orders,omitempty"`
	ApproxDelta float64   `json:"approx_delta,omitempty"`
	// a release
	Mechanism string    `json:"mechanism,omitempty"`
	RDP       rdpValues `json:"rdp,omitempty"`
	// both
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// Prev is the SHA-256 of the previous line's bytes (without its newline), in hex; "" on the first line.
	Prev string `json:"prev"`
}

// rdpValues are Rényi divergence bounds, +∞ written as null (JSON has no infinity).
type rdpValues []float64

func (r rdpValues) MarshalJSON() ([]byte, error) {
	out := make([]*float64, len(r))
	for i := range r {
		if !math.IsInf(r[i], 1) {
			out[i] = &r[i]
		}
	}
	return json.Marshal(out)
}

func (r *rdpValues) UnmarshalJSON(b []byte) error {
	var in []*float64
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = make(rdpValues, len(in))
	for i, v := range in {
		(*r)[i] = math.Inf(1)
		if v != nil {
			(*r)[i] = *v
		}
	}
	return nil
}

// Ledger is a dataset's budget and every release charged to it, as read (and verified) from its file.
type Ledger struct {
	Path    string
	Dataset string // "sha256:…" of the canonical rows
	Records int    // the number of trajectories (public)
	Created string // when the budget was granted (RFC 3339, UTC)
	Total   Total
	Entries []Entry

	raw [][]byte // the lines as stored
}

// Status is what the ledger's releases used of its budget.
func (l *Ledger) Status() Status {
	a, err := l.account()
	if err != nil { // a verified ledger always replays
		return Status{Total: l.Total}
	}
	return a.status()
}

// Table is the ledger for people: a header and one row per line (the budget first), with each release's
// ε and δ and what was spent and left after it.
func (l *Ledger) Table() (header []string, rows [][]string) {
	amounts := func(e, d float64) string { return fmt.Sprintf("ε = %.4g, δ = %.3g", e, d) }
	stamp := func(t string) string { return strings.Replace(t[:min(len(t), 19)], "T", " ", 1) }
	rows = [][]string{{"0", stamp(l.Created), "budget: " + l.Total.String(), "", "", amounts(0, 0), amounts(l.Total.Epsilon, l.Total.Delta)}}
	for i, st := range l.History() {
		e := l.Entries[i]
		rows = append(rows, []string{fmt.Sprint(e.Seq), stamp(e.Time), e.Mechanism, fmt.Sprint(e.Epsilon), fmt.Sprint(e.Delta),
			amounts(st.Epsilon, st.Delta), amounts(st.EpsilonLeft, st.DeltaLeft)})
	}
	return []string{"#", "time (UTC)", "release", "ε", "δ", "spent after", "left after"}, rows
}

// History is the budget's status after each release, in order.
func (l *Ledger) History() []Status {
	a, err := newAccount(l.Total)
	if err != nil {
		return nil
	}
	out := make([]Status, 0, len(l.Entries))
	for _, e := range l.Entries {
		a.add(e)
		out = append(out, a.status())
	}
	return out
}

// account replays the entries.
func (l *Ledger) account() (*account, error) {
	a, err := newAccount(l.Total)
	if err != nil {
		return nil, err
	}
	for _, e := range l.Entries {
		if !a.add(e) {
			return nil, &LedgerError{Path: l.Path, Line: e.Seq + 1, Problem: "charges more than the budget allows: the ledger was not written by this package"}
		}
	}
	return a, nil
}

// head is the SHA-256 of the last line, in hex.
func (l *Ledger) head() string { return lineHash(l.raw[len(l.raw)-1]) }

func lineHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// LedgerError says why a ledger cannot be trusted: the session refuses to run rather than start afresh.
type LedgerError struct {
	Path    string
	Line    int // 1-based; 0 for the whole file
	Problem string
}

func (e *LedgerError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s, line %d", e.Path, e.Line)
	}
	return fmt.Sprintf("session: the privacy ledger %s %s; the session refuses to run, since starting afresh would forget what was spent", where, e.Problem)
}

// readLedger reads the ledger at path and verifies it line by line: the format, the chain of hashes, the
// dataset, the sequence and that every release fits the budget. A missing file is fs.ErrNotExist.
func readLedger(path, dataset string) (*Ledger, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bad := func(i int, format string, args ...any) error {
		return &LedgerError{Path: path, Line: i + 1, Problem: fmt.Sprintf(format, args...)}
	}
	if len(b) == 0 {
		return nil, &LedgerError{Path: path, Problem: "is empty (the budget line is missing)"}
	}
	if b[len(b)-1] != '\n' {
		return nil, bad(bytes.Count(b, []byte{'\n'}), "is incomplete (no newline at its end): a charge was cut off while being written; the release it charged never ran, so deleting that last partial line is safe")
	}
	l := &Ledger{Path: path, raw: bytes.Split(b[:len(b)-1], []byte{'\n'})}
	prev := ""
	for i, raw := range l.raw {
		var ln line
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ln); err != nil {
			return nil, bad(i, "is not a ledger line (%v)", err)
		}
		if dec.More() {
			return nil, bad(i, "holds more than one ledger line")
		}
		switch {
		case ln.V != ledgerVersion:
			return nil, bad(i, "has format version %d, want %d", ln.V, ledgerVersion)
		case ln.Prev != prev:
			return nil, bad(i, "was edited, or a line before it was: its chain hash does not match the line before")
		case ln.Dataset != dataset:
			return nil, bad(i, "belongs to dataset %s, not %s", short(ln.Dataset), short(dataset))
		case ln.Seq != i:
			return nil, bad(i, "has sequence number %d, want %d", ln.Seq, i)
		case i == 0 && ln.Kind != "budget", i > 0 && ln.Kind != "release":
			return nil, bad(i, "is a %q line where a %s line belongs", ln.Kind, map[bool]string{true: "budget", false: "release"}[i == 0])
		}
		if _, err := time.Parse(time.RFC3339Nano, ln.Time); err != nil {
			return nil, bad(i, "has no valid time (%v)", err)
		}
		prev = lineHash(raw)
		if i == 0 {
			kind, err := ParseFilter(ln.Filter)
			if err != nil {
				return nil, bad(i, "names no filter: %v", err)
			}
			t, err := Total{Epsilon: ln.Epsilon, Delta: ln.Delta, Filter: kind, Orders: ln.Orders, ApproxDelta: ln.ApproxDelta}.withDefaults()
			if err != nil {
				return nil, bad(i, "holds no valid budget: %v", err)
			}
			l.Dataset, l.Records, l.Created, l.Total = ln.Dataset, ln.Records, ln.Time, t
			continue
		}
		e := Entry{Seq: ln.Seq, Time: ln.Time, Mechanism: ln.Mechanism, Epsilon: ln.Epsilon, Delta: ln.Delta, RDP: ln.RDP}
		if err := (Charge{Mechanism: e.Mechanism, Epsilon: e.Epsilon, Delta: e.Delta}).validate(); err != nil {
			return nil, bad(i, "holds no valid charge: %v", err)
		}
		if e.RDP != nil && len(e.RDP) != len(l.Total.Orders) {
			return nil, bad(i, "has a Rényi curve at %d orders, the budget at %d", len(e.RDP), len(l.Total.Orders))
		}
		l.Entries = append(l.Entries, e)
	}
	if _, err := l.account(); err != nil {
		return nil, err
	}
	return l, nil
}

// encodeLine marshals ln as one line, without the newline.
func encodeLine(ln line) ([]byte, error) {
	b, err := json.Marshal(ln)
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(b, '\n') >= 0 { // json.Marshal escapes newlines in strings; this cannot happen
		return nil, errors.New("session: a ledger line would span two lines")
	}
	return b, nil
}

// appendLine writes b and a newline at the end of the ledger and waits until the file is on disk.
func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	return writeSynced(f, append(b, '\n'))
}

// createLedger writes a new ledger holding the budget line b, refusing to overwrite a file, and syncs the
// file and its folder.
func createLedger(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := writeSynced(f, append(b, '\n')); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeSynced writes b to f, waits until it is on disk and closes f.
func writeSynced(f *os.File, b []byte) error {
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a folder's entries (a new or renamed file) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}

// writeFileAtomic replaces path with b: a temporary file, synced, renamed over it, and the folder synced.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing left after the rename
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// short abbreviates a dataset hash for messages: "sha256:1a2b3c4d5e6f…".
func short(h string) string {
	if len(h) > 19 {
		return h[:19] + "…"
	}
	return h
}
