package sweeps

import "sync"

// cache computes each key's value once per process, even under concurrent calls; an error is cached too
// (the computation is deterministic, so retrying would fail again).
type cache[V any] struct {
	mu sync.Mutex
	m  map[string]*entry[V]
}

type entry[V any] struct {
	once sync.Once
	v    V
	err  error
}

func (c *cache[V]) get(key string, f func() (V, error)) (V, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*entry[V]{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &entry[V]{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}
