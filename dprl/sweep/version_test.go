package sweep

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkedCommit builds the dprl command the way docker/cmd.Dockerfile does (no version control
// information, the commit given at link time) and checks that `dprl version` reports that commit.
func TestLinkedCommit(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build dprl: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "dprl")
	const commit = "0123456789abcdef0123456789abcdef01234567+dirty"
	build := exec.Command(goCmd, "build", "-buildvcs=false", "-o", bin,
		"-ldflags", "-X github.com/dprl-project/dprl/dprl/sweep.linkedCommit="+commit, "../cmd/dprl")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("dprl version: %v", err)
	}
	if !strings.Contains(string(out), " commit "+commit+" ") {
		t.Errorf("dprl version = %q, want commit %s", out, commit)
	}
}
