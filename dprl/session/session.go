package session

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dprl-project/dprl/trajectory"
)

// StoreEnv names the environment variable that sets the default store folder (DefaultStore).
const StoreEnv = "DPRL_BUDGET_DIR"

// DefaultStore is the folder where budgets live unless a Config names one: $DPRL_BUDGET_DIR, else
// $XDG_STATE_HOME/dprl/budgets, else ~/.local/state/dprl/budgets. It is per user and survives reboots
// (unlike a temporary folder, which would silently hand out fresh budgets).
func DefaultStore() (string, error) {
	if d := os.Getenv(StoreEnv); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "dprl", "budgets"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("session: no store folder: set %s (%w)", StoreEnv, err)
	}
	return filepath.Join(home, ".local", "state", "dprl", "budgets"), nil
}

// Config says which data a session is over and where its budget is kept.
type Config struct {
	// Data is the trajectory file: the project's CSV format (trajectory.ReadCSV), or its JSON format when the
	// name ends in .json.
	Data string
	// Actions is the number of actions (0: one more than the largest action in the file).
	Actions int
	// Store is the folder that knows every dataset's ledger ("": DefaultStore).
	Store string
	// Ledger is the ledger file ("": <Store>/<hash>.jsonl). A dataset the store knows keeps the ledger it
	// was given first.
	Ledger string
	// Src is the noise source of the releases (nil: ChaCha8 seeded from crypto/rand). A fixed seed makes
	// the noise reproducible by anyone who knows it: for tests, never for a release on private data.
	Src mrand.Source
}

// Identity is what a session tells about its data without spending: the file, its content hash and its
// public size and shape (the number of trajectories is public under the replace-one relation).
type Identity struct {
	Data    string // the file, as an absolute path
	Hash    string // "sha256:…" of the canonical trajectories (package doc)
	Records int    // trajectories
	ObsDim  int
	Actions int
}

// Session is the only way to the private data of one trajectory file: every release is charged to the
// dataset's budget in its ledger, on disk, before its noise is drawn. A Session is not safe for
// concurrent use by goroutines (open one each); any number of processes may share a dataset's ledger.
type Session struct {
	id     Identity
	data   *trajectory.Dataset
	store  string
	ledger string
	total  Total
	src    mrand.Source
}

// NoBudgetError is returned by Open for a dataset the store does not know.
type NoBudgetError struct {
	Identity Identity
	Store    string
}

func (e *NoBudgetError) Error() string {
	return fmt.Sprintf("session: no privacy budget for dataset %s (%s, %d trajectories) in %s: the data owner grants one with session.Init or `dprl budget init %s --epsilon E --delta D`",
		short(e.Identity.Hash), e.Identity.Data, e.Identity.Records, e.Store, e.Identity.Data)
}

// ExistsError is returned by Init for a dataset that already has a budget.
type ExistsError struct {
	Identity Identity
	Ledger   string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("session: dataset %s (%s) already has a privacy budget (ledger %s); a budget is granted once per dataset",
		short(e.Identity.Hash), e.Identity.Data, e.Ledger)
}

// Identify reads the file and returns its identity; nothing is released or charged.
func Identify(data string, actions int) (Identity, error) {
	_, id, err := load(data, actions)
	return id, err
}

// load reads the trajectory file and hashes it.
func load(path string, actions int) (*trajectory.Dataset, Identity, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, Identity{}, err
	}
	if actions < 0 {
		return nil, Identity{}, check.AtLeast("Actions", actions, 0)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, Identity{}, err
	}
	defer f.Close()
	var d *trajectory.Dataset
	if strings.HasSuffix(strings.ToLower(abs), ".json") {
		d, err = trajectory.ReadJSON(f)
	} else {
		n := actions
		if n == 0 {
			n = 1 << 30
		}
		d, err = trajectory.ReadCSV(f, n)
	}
	if err != nil {
		return nil, Identity{}, fmt.Errorf("session: %s: %w", abs, err)
	}
	if actions == 0 {
		d.NumActions = 1
		for _, tr := range d.Trajectories {
			for _, s := range tr.Steps {
				d.NumActions = max(d.NumActions, s.Action+1)
			}
		}
	}
	h, err := Hash(d)
	if err != nil {
		return nil, Identity{}, err
	}
	return d, Identity{Data: abs, Hash: h, Records: len(d.Trajectories), ObsDim: d.ObsDim, Actions: d.NumActions}, nil
}

// Hash identifies a dataset by its content: the SHA-256 of the sorted SHA-256s of its trajectories, each
// written alone in the canonical CSV form of trajectory.Dataset.WriteCSV (shortest decimals, fixed columns), so
// a renamed, copied, reformatted or reordered file has the same hash and a changed value does not.
func Hash(d *trajectory.Dataset) (string, error) {
	sums := make([][sha256.Size]byte, len(d.Trajectories))
	one := &trajectory.Dataset{ObsDim: d.ObsDim, NumActions: d.NumActions, Trajectories: make([]trajectory.Trajectory, 1)}
	for i, tr := range d.Trajectories {
		one.Trajectories[0] = tr
		h := sha256.New()
		if err := one.WriteCSV(h); err != nil {
			return "", fmt.Errorf("session: trajectory %d: %w", i, err)
		}
		copy(sums[i][:], h.Sum(nil))
	}
	slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, s := range sums {
		h.Write(s[:])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// start loads the data and resolves the store.
func start(cfg Config) (*Session, error) {
	d, id, err := load(cfg.Data, cfg.Actions)
	if err != nil {
		return nil, err
	}
	store := cfg.Store
	if store == "" {
		if store, err = DefaultStore(); err != nil {
			return nil, err
		}
	}
	if store, err = filepath.Abs(store); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(store, 0o700); err != nil {
		return nil, err
	}
	s := &Session{id: id, data: d, store: store, src: cfg.Src}
	if cfg.Ledger != "" {
		if s.ledger, err = filepath.Abs(cfg.Ledger); err != nil {
			return nil, err
		}
	}
	if s.src == nil {
		var seed [32]byte
		if _, err := rand.Read(seed[:]); err != nil {
			return nil, err
		}
		s.src = mrand.NewChaCha8(seed)
	}
	return s, nil
}

// name is the dataset's file stem in the store: its hash without the "sha256:" prefix.
func (s *Session) name() string { return strings.TrimPrefix(s.id.Hash, "sha256:") }

func (s *Session) lock(exclusive bool) (func(), error) {
	return lockFile(filepath.Join(s.store, s.name()+".lock"), exclusive)
}

// known is the store's record of a dataset: its ledger and how far it reached at the last charge.
type known struct {
	Dataset string `json:"dataset"`
	Ledger  string `json:"ledger"`
	Lines   int    `json:"lines"`
	Head    string `json:"head"` // SHA-256 of line Lines, in hex
}

func (s *Session) knownPath() string { return filepath.Join(s.store, s.name()+".known") }

// readKnown returns the store's record of the dataset, or nil if it has none.
func (s *Session) readKnown() (*known, error) {
	b, err := os.ReadFile(s.knownPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var k known
	if err := json.Unmarshal(b, &k); err != nil || k.Dataset != s.id.Hash || k.Lines < 1 || k.Ledger == "" {
		return nil, &LedgerError{Path: s.knownPath(), Problem: "(the store's record of this dataset) is damaged"}
	}
	return &k, nil
}

func (s *Session) writeKnown(l *Ledger) error {
	b, err := json.Marshal(known{Dataset: s.id.Hash, Ledger: l.Path, Lines: len(l.raw), Head: l.head()})
	if err != nil {
		return err
	}
	return writeFileAtomic(s.knownPath(), append(b, '\n'))
}

// verify reads the dataset's ledger and checks it against the store's record (under the lock): a ledger
// that is missing, shorter than recorded or different at the recorded line is refused. A ledger that
// reaches past the record (a process stopped between the two writes of a charge) or that the store did
// not know yet is recorded. It returns a *NoBudgetError when neither exists.
func (s *Session) verify() (*Ledger, error) {
	k, err := s.readKnown()
	if err != nil {
		return nil, err
	}
	if k != nil {
		if s.ledger != "" && s.ledger != k.Ledger {
			return nil, fmt.Errorf("session: dataset %s keeps its ledger at %s, not %s", short(s.id.Hash), k.Ledger, s.ledger)
		}
		s.ledger = k.Ledger
	}
	if s.ledger == "" {
		s.ledger = filepath.Join(s.store, s.name()+".jsonl")
	}
	l, err := readLedger(s.ledger, s.id.Hash)
	if errors.Is(err, fs.ErrNotExist) {
		if k != nil {
			return nil, &LedgerError{Path: s.ledger, Problem: fmt.Sprintf("is missing, though the store %s knows this dataset (%d lines at the last charge)", s.store, k.Lines)}
		}
		return nil, &NoBudgetError{Identity: s.id, Store: s.store}
	}
	if err != nil {
		return nil, err
	}
	if k != nil {
		switch {
		case len(l.raw) < k.Lines:
			return nil, &LedgerError{Path: s.ledger, Problem: fmt.Sprintf("was truncated: it has %d lines, the store recorded %d", len(l.raw), k.Lines)}
		case lineHash(l.raw[k.Lines-1]) != k.Head:
			return nil, &LedgerError{Path: s.ledger, Line: k.Lines, Problem: "is not the line the store recorded: the ledger was replaced or edited"}
		}
	}
	if k == nil || len(l.raw) > k.Lines {
		if err := s.writeKnown(l); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Open starts a session on the data's existing budget, after verifying its ledger. It refuses a dataset
// without a budget (*NoBudgetError) and a ledger that is missing, truncated or edited (*LedgerError).
func Open(cfg Config) (*Session, error) {
	s, err := start(cfg)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lock(true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := s.verify()
	if err != nil {
		return nil, err
	}
	s.total = l.Total
	return s, nil
}

// Init grants the data its budget: it writes the ledger's first line (the total) and records the dataset
// in the store. It refuses a dataset that already has a budget (*ExistsError).
func Init(cfg Config, total Total) (*Session, error) {
	s, _, err := grant(cfg, total, false)
	return s, err
}

// OpenOrInit opens the data's budget, or grants it total when it has none (created reports which). An
// existing budget keeps its own total.
func OpenOrInit(cfg Config, total Total) (s *Session, created bool, err error) {
	return grant(cfg, total, true)
}

// grant writes a new budget for a dataset that has none; for one that has, it opens it (orOpen) or
// refuses.
func grant(cfg Config, total Total, orOpen bool) (*Session, bool, error) {
	t, err := total.withDefaults()
	if err != nil {
		return nil, false, err
	}
	s, err := start(cfg)
	if err != nil {
		return nil, false, err
	}
	unlock, err := s.lock(true)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	l, err := s.verify()
	var none *NoBudgetError
	switch {
	case err == nil && orOpen:
		s.total = l.Total
		return s, false, nil
	case err == nil:
		return nil, false, &ExistsError{Identity: s.id, Ledger: s.ledger}
	case !errors.As(err, &none):
		return nil, false, err
	}
	b, err := encodeLine(line{V: ledgerVersion, Kind: "budget", Dataset: s.id.Hash, Time: now(), Records: s.id.Records,
		Filter: t.Filter.String(), Orders: t.Orders, ApproxDelta: t.ApproxDelta, Epsilon: t.Epsilon, Delta: t.Delta})
	if err != nil {
		return nil, false, err
	}
	if err := createLedger(s.ledger, b); err != nil {
		return nil, false, err
	}
	if l, err = readLedger(s.ledger, s.id.Hash); err != nil {
		return nil, false, err
	}
	if err := s.writeKnown(l); err != nil {
		return nil, false, err
	}
	s.total = l.Total
	return s, true, nil
}

// now is the time stamp of a ledger line.
func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// Identity is the session's data: file, hash and public size.
func (s *Session) Identity() Identity { return s.id }

// Total is the dataset's budget.
func (s *Session) Total() Total { return s.total }

// LedgerPath is the ledger's file.
func (s *Session) LedgerPath() string { return s.ledger }

// Ledger reads and verifies the dataset's ledger as it is now (other processes may have charged since the
// session opened).
func (s *Session) Ledger() (*Ledger, error) {
	unlock, err := s.lock(true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.verify()
}

// Release charges c to the budget and then calls run with the private data and the noise source: the
// ledger line is on disk (written and synced, under the lock every process takes) before run starts, so a
// process killed at any point has charged at least what it released. A charge that does not fit is
// refused with a *BudgetError and run is not called. An error of run leaves the charge in place (nothing
// may have been released, but the ledger cannot know) and comes back as a *ReleaseError, whose message
// withholds the cause (it may describe the private data). That run failed is itself visible, so run should
// not fail on anything the data hold (clip, clamp or skip instead). run must not keep d or change it.
func (s *Session) Release(c Charge, run func(d *trajectory.Dataset, src mrand.Source) error) error {
	if run == nil {
		return check.Missing("run", "the release to run after the charge")
	}
	if err := s.charge(c); err != nil {
		return err
	}
	if err := run(s.data, s.src); err != nil {
		return &ReleaseError{Mechanism: c.Mechanism, Cause: err}
	}
	return nil
}

// ReleaseError is a release that failed on the private data after its charge, which stands. Its message
// does not include the cause: an error about the data (a state out of range in some trajectory) is itself
// information about it. Cause (also through errors.Unwrap) is there for code that decides to look; try the
// release on the planning data first to find what is wrong.
type ReleaseError struct {
	Mechanism string
	Cause     error
}

func (e *ReleaseError) Error() string {
	return fmt.Sprintf("session: %s failed on the private data after its charge, which stands; the reason is withheld, since it may describe the data (ReleaseError.Cause has it): run the same release on the planning data to see it", e.Mechanism)
}

func (e *ReleaseError) Unwrap() error { return e.Cause }

// charge appends c to the ledger if it fits.
func (s *Session) charge(c Charge) error {
	e, err := s.total.entry(c)
	if err != nil {
		return err
	}
	unlock, err := s.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	l, err := s.verify()
	if err != nil {
		return err
	}
	a, err := l.account()
	if err != nil {
		return err
	}
	before := a.status()
	if !a.add(e) {
		return &BudgetError{Dataset: s.id.Hash, Asked: c, Status: before}
	}
	b, err := encodeLine(line{V: ledgerVersion, Kind: "release", Seq: len(l.raw), Dataset: s.id.Hash, Time: now(),
		Mechanism: e.Mechanism, Epsilon: e.Epsilon, Delta: e.Delta, RDP: e.RDP, Prev: l.head()})
	if err != nil {
		return err
	}
	if err := appendLine(s.ledger, b); err != nil {
		return err
	}
	l.raw = append(l.raw, b)
	return s.writeKnown(l)
}
