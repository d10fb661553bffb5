package seoyang2020

import "github.com/dprl-project/dprl/dprl/param"

const check param.Checker = "seoyang2020"
