//go:build unix

package sweep

import (
	"errors"
	"os"
	"syscall"
)

var errLocked = errors.New("locked by another process")

// lockFile takes an exclusive advisory lock on f without waiting: errLocked when another process holds it,
// another error where the file system has no locks.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
