package sharma

import "github.com/dprl-project/dprl/dprl/param"

const check param.Checker = "sharma"
