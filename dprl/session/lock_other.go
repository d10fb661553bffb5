//go:build !unix

package session

import (
	"fmt"
	"runtime"
)

// lockFile has no implementation here: without a lock across processes two of them could both spend the
// last of a budget, so sessions refuse to run.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	return nil, fmt.Errorf("session: no lock across processes on %s: sessions need a Unix system", runtime.GOOS)
}
