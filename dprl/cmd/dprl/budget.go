package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/dprl-project/dprl/dprl/display"
	"github.com/dprl-project/dprl/dprl/session"
)

const budgetUsage = `usage:
  dprl budget init FILE --epsilon E --delta D [--filter basic|renyi] [--approx-delta D2] [--actions N] [--store DIR] [--ledger PATH]
  dprl budget show FILE [--actions N] [--store DIR]

A trajectory file's privacy budget (package dprl/session): init grants it once, show prints its ledger
(every release, what was spent and left) after verifying it. The store is $DPRL_BUDGET_DIR, else
~/.local/state/dprl/budgets.

Examples:
  dprl budget init data/trajectories.csv --epsilon 1 --delta 1e-5
  dprl budget init data/trajectories.csv --epsilon 2 --delta 1e-5 --filter renyi
  dprl budget show data/trajectories.csv
`

// runBudget is `dprl budget …`: it returns the exit status (0 done, 1 refused or failed, 2 usage).
func runBudget(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, budgetUsage)
		return 2
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{"init": budgetInit, "show": budgetShow}
	f, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "dprl budget: unknown subcommand %q\n%s", args[0], budgetUsage)
		return 2
	}
	err := f(args[1:], stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "dprl budget %s: %v\n%s", args[0], err, budgetUsage)
		return 2
	}
	fmt.Fprintf(stderr, "dprl budget %s: %v\n", args[0], err)
	return 1
}

// budgetFlags are the flags every budget subcommand takes.
func budgetFlags(name string, stderr io.Writer) (*flag.FlagSet, *session.Config) {
	fs := flag.NewFlagSet("dprl budget "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &session.Config{}
	fs.IntVar(&cfg.Actions, "actions", 0, "number of actions (0: one more than the largest in the file)")
	fs.StringVar(&cfg.Store, "store", "", "budget store (default $DPRL_BUDGET_DIR, else ~/.local/state/dprl/budgets)")
	return fs, cfg
}

func budgetInit(args []string, stdout, stderr io.Writer) error {
	fs, cfg := budgetFlags("init", stderr)
	var t session.Total
	var filter string
	fs.Float64Var(&t.Epsilon, "epsilon", 0, "total ε the file may ever release (required)")
	fs.Float64Var(&t.Delta, "delta", -1, "total δ (required)")
	fs.StringVar(&filter, "filter", "basic", "how releases compose: basic or renyi")
	fs.Float64Var(&t.ApproxDelta, "approx-delta", 0, "renyi: the part of δ for the δ's of (ε, δ)-releases (default δ/2)")
	fs.StringVar(&cfg.Ledger, "ledger", "", "ledger file (default <store>/<hash>.jsonl)")
	pos, err := parse(fs, args, 1, "one trajectory file")
	if err != nil {
		return err
	}
	if t.Epsilon == 0 || t.Delta == -1 {
		return usageError("--epsilon and --delta are required")
	}
	if t.Filter, err = session.ParseFilter(filter); err != nil {
		return err
	}
	cfg.Data = pos[0]
	s, err := session.Init(*cfg, t)
	if err != nil {
		return err
	}
	id := s.Identity()
	fmt.Fprintf(stdout, "granted %s to dataset %s (%s, %d trajectories)\nledger %s\n", s.Total(), id.Hash, id.Data, id.Records, s.LedgerPath())
	return nil
}

func budgetShow(args []string, stdout, stderr io.Writer) error {
	fs, cfg := budgetFlags("show", stderr)
	pos, err := parse(fs, args, 1, "one trajectory file")
	if err != nil {
		return err
	}
	cfg.Data = pos[0]
	s, err := session.Open(*cfg)
	if err != nil {
		return err
	}
	l, err := s.Ledger()
	if err != nil {
		return err
	}
	id := s.Identity()
	fmt.Fprintf(stdout, "dataset %s (%s, %d trajectories)\nledger  %s (verified)\n", id.Hash, id.Data, id.Records, l.Path)
	fmt.Fprint(stdout, display.TableText(l.Table()))
	fmt.Fprintln(stdout, l.Status())
	return nil
}
