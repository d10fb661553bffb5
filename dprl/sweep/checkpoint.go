package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A shard's checkpoint, shard-NNNNN.ckpt, holds the tasks it has finished so far, so that a shard killed,
// timed out or preempted resumes after them instead of starting over. It is a header line naming the spec
// hash, the shard and its task range, then records appended one at a time:
//
//	run <attempt> 0 <length> <sha256>\n<length bytes: JSON, who started the attempt>\n
//	task <index> <rows> <length> <sha256>\n<length bytes: the task's rows as CSV>\n
//
// Each record's SHA-256 covers its first line without the checksum, and its payload; it is synced before
// the task counts as finished. A record cut short by a crash fails its checksum and is dropped when the
// checkpoint is opened again (with everything after it), so a reader never takes a torn record for a
// finished task. The shard's CSV is the header and the tasks' payloads in task order: the bytes one
// uninterrupted run writes. The checkpoint is removed once the shard's CSV and manifest are written.
const checkpointMagic = "dprl-sweep-checkpoint 1"

// CheckpointExt is the extension of a shard's checkpoint file.
const CheckpointExt = ".ckpt"

// maxRecordLine bounds a record's first line; longer is not a record.
const maxRecordLine = 256

// BusyError is a shard whose checkpoint another process holds locked: it is running that shard now.
type BusyError struct{ Shard int }

// Error says which shard and what to do.
func (e *BusyError) Error() string {
	return fmt.Sprintf("sweep: shard %d is being run by another process (its checkpoint is locked): wait for it, or stop it first", e.Shard)
}

type checkpoint struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	header int // the header's length

	tasks   map[int][]byte // task index → its rows as CSV
	rows    map[int]int
	runs    int  // attempts recorded, this one included once started
	dropped int  // bytes of a torn record dropped when opening
	locked  bool // false where the file system has no locks
}

func checkpointHeader(hash string, shard, first, end int) string {
	return fmt.Sprintf("%s spec %s shard %d tasks %d %d\n", checkpointMagic, hash, shard, first, end)
}

// openCheckpoint opens (creating it if needed) and locks shard's checkpoint in dir, reads the records that
// check out and drops a torn tail. A checkpoint of another spec or task range is emptied (log says so).
func openCheckpoint(dir string, shard, first, end int, hash string, log *logger) (*checkpoint, error) {
	path := filepath.Join(dir, ShardName(shard)+CheckpointExt)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	c := &checkpoint{f: f, path: path, tasks: map[int][]byte{}, rows: map[int]int{}}
	switch err := lockFile(f); {
	case errors.Is(err, errLocked):
		f.Close()
		return nil, &BusyError{Shard: shard}
	case err != nil:
		log.printf("warning: cannot lock %s (%v): make sure no other process runs shard %d", filepath.Base(path), err, shard)
	default:
		c.locked = true
	}
	data, err := io.ReadAll(f)
	if err != nil {
		c.close()
		return nil, err
	}
	header := checkpointHeader(hash, shard, first, end)
	valid := 0
	if bytes.HasPrefix(data, []byte(header)) {
		valid = len(header)
		for valid < len(data) {
			r, n, ok := parseRecord(data[valid:])
			if !ok {
				break
			}
			switch r.kind {
			case "run":
				c.runs++
			case "task":
				if r.a >= first && r.a < end && c.tasks[r.a] == nil {
					c.tasks[r.a], c.rows[r.a] = r.payload, r.b
				}
			}
			valid += n
		}
		c.dropped = len(data) - valid
	} else if len(data) > 0 {
		log.printf("%s belongs to another spec or sharding: starting it afresh", filepath.Base(path))
	}
	if valid < len(data) || valid == 0 {
		if err := f.Truncate(int64(valid)); err != nil {
			c.close()
			return nil, err
		}
	}
	if _, err := f.Seek(int64(valid), io.SeekStart); err != nil {
		c.close()
		return nil, err
	}
	if valid == 0 {
		if _, err := f.WriteString(header); err != nil {
			c.close()
			return nil, err
		}
	}
	c.header = len(header)
	return c, nil
}

// reset empties the checkpoint (its header stays), for a shard rerun from scratch.
func (c *checkpoint) reset() error {
	c.tasks, c.rows, c.runs = map[int][]byte{}, map[int]int{}, 0
	if err := c.f.Truncate(int64(c.header)); err != nil {
		return err
	}
	_, err := c.f.Seek(int64(c.header), io.SeekStart)
	return err
}

type record struct {
	kind    string
	a, b    int
	payload []byte
}

// parseRecord reads the record at the start of data and its length; ok is false for a torn or altered one.
func parseRecord(data []byte) (r record, n int, ok bool) {
	nl := bytes.IndexByte(data[:min(len(data), maxRecordLine)], '\n')
	if nl < 0 {
		return r, 0, false
	}
	f := strings.Fields(string(data[:nl]))
	if len(f) != 5 || (f[0] != "run" && f[0] != "task") {
		return r, 0, false
	}
	var nums [3]int
	for i := range nums {
		v, err := strconv.Atoi(f[i+1])
		if err != nil || v < 0 {
			return r, 0, false
		}
		nums[i] = v
	}
	length := nums[2]
	end := nl + 1 + length
	if length > len(data)-nl-2 || data[end] != '\n' {
		return r, 0, false
	}
	payload := data[nl+1 : end]
	if recordSum(f[0], nums[0], nums[1], payload) != f[4] {
		return r, 0, false
	}
	return record{kind: f[0], a: nums[0], b: nums[1], payload: bytes.Clone(payload)}, end + 1, true
}

func recordSum(kind string, a, b int, payload []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %d %d %d\n", kind, a, b, len(payload))
	h.Write(payload)
	return hex.EncodeToString(h.Sum(nil))
}

// add appends a record and syncs it; the crash tests can kill the process halfway through the write.
func (c *checkpoint) add(kind string, a, b int, payload []byte) error {
	var rec bytes.Buffer
	fmt.Fprintf(&rec, "%s %d %d %d %s\n", kind, a, b, len(payload), recordSum(kind, a, b, payload))
	rec.Write(payload)
	rec.WriteByte('\n')
	data := rec.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.f.Write(data[:len(data)/2]); err != nil {
		return err
	}
	crashPoint("mid-checkpoint")
	if _, err := c.f.Write(data[len(data)/2:]); err != nil {
		return err
	}
	return c.f.Sync()
}

// start records an attempt (the host, process and time) and returns its number, 1 for the first.
func (c *checkpoint) start() (int, error) {
	host, _ := os.Hostname()
	b, _ := json.Marshal(struct {
		Host    string `json:"host"`
		PID     int    `json:"pid"`
		Started string `json:"started"`
	}{host, os.Getpid(), time.Now().UTC().Format(time.RFC3339)})
	c.runs++
	return c.runs, c.add("run", c.runs, 0, b)
}

// task records a finished task's rows.
func (c *checkpoint) task(index, rows int, csv []byte) error { return c.add("task", index, rows, csv) }

func (c *checkpoint) close() {
	if c.locked {
		unlockFile(c.f)
	}
	c.f.Close()
}

// remove deletes the checkpoint (the shard is complete) and releases it.
func (c *checkpoint) remove() error {
	err := os.Remove(c.path)
	c.close()
	return err
}

// checkpointProgress reads how many tasks of [first, end) a checkpoint holds, for Status, without locking
// it or changing it.
func checkpointProgress(path string) (tasks int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 || !bytes.HasPrefix(data, []byte(checkpointMagic+" ")) {
		return 0, fmt.Errorf("%s: not a sweep checkpoint", filepath.Base(path))
	}
	seen := map[int]bool{}
	for off := nl + 1; off < len(data); {
		r, n, ok := parseRecord(data[off:])
		if !ok {
			break
		}
		if r.kind == "task" {
			seen[r.a] = true
		}
		off += n
	}
	return len(seen), nil
}
