package sweeps

import "github.com/dprl-project/dprl/dprl/param"

const check param.Checker = "sweep"

func sweepMissing(name, want string) error { return check.Missing("params."+name, want) }
