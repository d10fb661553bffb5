//go:build !unix

package sweep

import (
	"errors"
	"os"
)

var errLocked = errors.New("locked by another process")

// lockFile is not available here: the caller warns and goes on unlocked.
func lockFile(*os.File) error { return errors.ErrUnsupported }

func unlockFile(*os.File) {}
