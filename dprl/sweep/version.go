package sweep

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Version identifies the code that produced a result.
type Version struct {
	Module    string // the main module's path
	Version   string // its version ("(devel)" for a build from a work tree)
	Commit    string // the VCS revision, with "+dirty" for uncommitted changes; "unknown" if neither the build nor git says
	GoVersion string
}

var (
	versionOnce sync.Once
	version     Version
)

// linkedCommit is the commit given at link time to a build made without version control information, such as
// the docker/cmd.Dockerfile image built from a copy of the tree:
//
//	go build -ldflags "-X github.com/dprl-project/dprl/dprl/sweep.linkedCommit=REV" ./dprl/cmd/dprl
var linkedCommit string

// BuildVersion reads the module version and commit from the binary's build information (vcs.revision,
// vcs.modified; build with -buildvcs=true), falling back to the commit given at link time (linkedCommit), to
// `git rev-parse HEAD` in the working directory, then in $DPRL_ROOT, then to "unknown".
func BuildVersion() Version {
	versionOnce.Do(func() {
		version = Version{Module: "github.com/dprl-project/dprl", Version: "unknown", Commit: "unknown", GoVersion: runtime.Version()}
		if bi, ok := debug.ReadBuildInfo(); ok {
			if bi.Main.Path != "" {
				version.Module = bi.Main.Path
			}
			if bi.Main.Version != "" {
				version.Version = bi.Main.Version
			}
			var rev, modified string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value
				}
			}
			if rev != "" {
				version.Commit = rev
				if modified == "true" {
					version.Commit += "+dirty"
				}
				return
			}
		}
		if linkedCommit != "" {
			version.Commit = linkedCommit
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		dirs := []string{""}
		if r := os.Getenv(RootEnv); r != "" {
			dirs = append(dirs, r)
		}
		for _, dir := range dirs {
			git := func(args ...string) ([]byte, error) {
				c := exec.CommandContext(ctx, "git", args...)
				c.Dir = dir
				return c.Output()
			}
			if out, err := git("rev-parse", "HEAD"); err == nil {
				version.Commit = strings.TrimSpace(string(out))
				if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && len(strings.TrimSpace(string(st))) > 0 {
					version.Commit += "+dirty"
				}
				return
			}
		}
	})
	return version
}
