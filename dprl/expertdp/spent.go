package expertdp

import "sync"

// spentKey is everything SpentEpsilon's accounting depends on.
type spentKey struct {
	p, q, s, delta float64
	acc            Accounting
	steps          int
}

// spentCache holds SpentEpsilon's results. It is bounded: when full it is emptied (a calibration's
// bisection adds a few dozen entries; experiments and audits repeat a handful of configurations).
var spentCache = &boundedCache{max: 4096}

type boundedCache struct {
	mu  sync.Mutex
	max int
	m   map[spentKey]float64
}

func (c *boundedCache) get(k spentKey) (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *boundedCache) put(k spentKey, v float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[spentKey]float64)
	}
	c.m[k] = v
}
