package trajectory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// JSONMaxDepth is the nesting depth of the JSON format: the dataset object, its trajectories array, a
// trajectory object, its steps array, a step object and an observation array. ReadJSON follows the format's
// structure, so an array or object where the format has none is refused at its first bracket: deeper
// nesting is never read.
const JSONMaxDepth = 6

// maxObsBeforeDim caps an observation array read before obs_dim (WriteJSON writes obs_dim first): without
// it, an observation of a billion one-character numbers would cost 8 bytes of memory per 2 bytes of input.
const maxObsBeforeDim = 1 << 16

// maxNumberLen caps the text of one number: a longer one is refused (no float64 needs more than 800 digits
// to round exactly, and the format never writes more than 24 characters).
const maxNumberLen = 1024

// jsonChunk is the size of the window ReadJSON reads its input through.
const jsonChunk = 64 << 10

// jsonParser reads the JSON format from a stream through one window of jsonChunk bytes, building the dataset
// as it goes. The line and column of an error are computed only when there is one: each window's newlines
// are counted (bytes.Count) once, when the window is replaced, which keeps the reader linear in the input.
type jsonParser struct {
	r        io.Reader
	buf      []byte // the window: bytes base … base+len(buf)−1 of the input
	pos      int    // the next byte to read in buf
	base     int64  // input offset of buf[0]
	lines    int    // newlines before buf[0]
	lineOff  int64  // input offset of the first byte after the last newline before buf[0]
	eof      bool
	readErr  error
	tok      []byte // a number or key that crosses a window boundary
	d        Dataset
	obsLen   int // the length every observation must have: obs_dim, else the first observation's
	obsKnown bool
	hasDim   bool
	ti, si   int // the trajectory and the step being read (−1: none); paths are built from them on error
	steps    blockList[Step]
	trajs    blockList[Trajectory]
}

// blockList collects values in fixed blocks of listBlock, reused from one list to the next, and hands them
// over as one slice of the exact length: a list of n values costs n values plus at most one block of
// waste, where growing a slice by append costs up to five times its final size in all.
type blockList[T any] struct {
	blocks [][]T
	n      int
}

const listBlock = 256

func (l *blockList[T]) add(v T) {
	b := l.n / listBlock
	if b == len(l.blocks) {
		l.blocks = append(l.blocks, make([]T, listBlock))
	}
	l.blocks[b][l.n%listBlock] = v
	l.n++
}

// take returns the values collected since the last take, in a new slice of their exact length, and empties
// the list (its blocks are kept for the next one).
func (l *blockList[T]) take() []T {
	out := make([]T, l.n)
	for i := 0; i < l.n; i += listBlock {
		copy(out[i:], l.blocks[i/listBlock][:min(listBlock, l.n-i)])
	}
	l.n = 0 // the blocks still refer to what out holds: no more memory is kept alive
	return out
}

// path is the JSON path of key name (and element elem ≥ 0 of its array) in the object being read, e.g.
// trajectories[2].steps[0].obs[1]; name "" is the object itself. It is built only for an error.
func (p *jsonParser) path(name string, elem int) string {
	var b []byte
	if p.ti >= 0 {
		b = fmt.Appendf(b, "trajectories[%d]", p.ti)
		if p.si >= 0 {
			b = fmt.Appendf(b, ".steps[%d]", p.si)
		}
		if name != "" {
			b = append(b, '.')
		}
	}
	b = append(b, name...)
	if elem >= 0 {
		b = fmt.Appendf(b, "[%d]", elem)
	}
	return string(b)
}

// fill replaces the window with the next bytes of the input; false at the end of the input (or on a read
// error, kept in readErr).
func (p *jsonParser) fill() bool {
	if p.eof {
		return false
	}
	if n := bytes.Count(p.buf, []byte{'\n'}); n > 0 {
		p.lines += n
		p.lineOff = p.base + int64(bytes.LastIndexByte(p.buf, '\n')) + 1
	}
	p.base += int64(len(p.buf))
	if cap(p.buf) == 0 {
		p.buf = make([]byte, 0, jsonChunk)
	}
	for {
		n, err := p.r.Read(p.buf[:cap(p.buf)])
		p.buf, p.pos = p.buf[:n], 0
		if err != nil {
			p.eof = true
			if err != io.EOF {
				p.readErr = err
			}
		}
		if n > 0 {
			return true
		}
		if p.eof {
			return false
		}
	}
}

// offset is the input offset of the next byte.
func (p *jsonParser) offset() int64 { return p.base + int64(p.pos) }

// position returns the line and column (both from 1, the column in bytes) of the input offset off, which
// lies in the current window or on the current line (a token never holds a newline).
func (p *jsonParser) position(off int64) (line, col int) {
	line, lineOff := p.lines+1, p.lineOff
	if off > p.base {
		seg := p.buf[:min(int(off-p.base), len(p.buf))]
		if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
			line += n
			lineOff = p.base + int64(bytes.LastIndexByte(seg, '\n')) + 1
		}
	}
	return line, int(off-lineOff) + 1
}

// syntax is a syntax error at input offset off.
func (p *jsonParser) syntax(off int64, format string, args ...any) *DataError {
	line, col := p.position(off)
	return &DataError{Line: line, Column: col, Err: fmt.Errorf(format, args...)}
}

// bad is a value error: field (a JSON path) = value at input offset off is not allowed.
func (p *jsonParser) bad(off int64, field, value, allowed string) *DataError {
	line, col := p.position(off)
	return &DataError{Line: line, Column: col, Field: field, Value: value, Allowed: allowed}
}

// eofErr is the error at the end of the input in the middle of the dataset (or the read error).
func (p *jsonParser) eofErr() *DataError {
	if p.readErr != nil {
		return &DataError{Err: p.readErr}
	}
	return p.syntax(p.offset(), "%v", io.ErrUnexpectedEOF)
}

// peek skips white space and returns the next byte without reading it; false at the end of the input.
func (p *jsonParser) peek() (byte, bool) {
	for {
		for p.pos < len(p.buf) {
			c := p.buf[p.pos]
			if c > ' ' || c != ' ' && c != '\n' && c != '\t' && c != '\r' {
				return c, true
			}
			p.pos++
		}
		if !p.fill() {
			return 0, false
		}
	}
}

// expect reads byte c after white space.
func (p *jsonParser) expect(c byte, what string) error {
	got, ok := p.peek()
	if !ok {
		return p.eofErr()
	}
	if got != c {
		return p.syntax(p.offset(), "invalid character %s %s", quoteByte(got), what)
	}
	p.pos++
	return nil
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// notValue is the syntax error for a byte that cannot start a JSON value, or nil.
func (p *jsonParser) notValue(c byte) error {
	switch {
	case c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9':
		return nil
	}
	return p.syntax(p.offset(), "invalid character %s looking for beginning of value", quoteByte(c))
}

// kind names the JSON value starting with c, as the errors call it.
func kind(c byte) string {
	switch {
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "bool"
	case c == 'n':
		return "null"
	}
	return "number"
}

// literal reads the literal word (true, false or null) whose first byte is next.
func (p *jsonParser) literal(word string) error {
	off := p.offset()
	for i := range len(word) {
		if p.pos == len(p.buf) && !p.fill() {
			return p.eofErr()
		}
		if p.buf[p.pos] != word[i] {
			return p.syntax(off, "invalid literal (want %s)", word)
		}
		p.pos++
	}
	return nil
}

// value reads a scalar where the format wants one (allowed says which): it returns the number's text, or an
// error for null, a string, an array, an object or a bool (or a number, when a bool is wanted).
func (p *jsonParser) scalar(name string, elem int, allowed string, wantBool bool) (text []byte, b bool, err error) {
	c, ok := p.peek()
	if !ok {
		return nil, false, p.eofErr()
	}
	off := p.offset()
	switch {
	case c == 'n':
		if err := p.literal("null"); err != nil {
			return nil, false, err
		}
		return nil, false, p.bad(off, p.path(name, elem), "null", "a value (omit an optional field instead of writing null)")
	case wantBool && c == 't':
		return nil, true, p.literal("true")
	case wantBool && c == 'f':
		return nil, false, p.literal("false")
	case !wantBool && (c == '-' || c >= '0' && c <= '9'):
		text, err := p.number()
		return text, false, err
	}
	if err := p.notValue(c); err != nil {
		return nil, false, err
	}
	return nil, false, p.bad(off, p.path(name, elem), kind(c), allowed)
}

// number reads a JSON number (grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?) and returns its text,
// valid until the next read.
func (p *jsonParser) number() ([]byte, error) {
	// Fast path: a number that ends in the window is scanned and checked in one pass, in place.
	if end, ok := scanNumber(p.buf, p.pos); ok && end < len(p.buf) && end-p.pos <= maxNumberLen {
		text := p.buf[p.pos:end]
		p.pos = end
		return text, nil
	}
	off := p.offset()
	p.tok = p.tok[:0]
	var text []byte
	for {
		i := p.pos
		for i < len(p.buf) && isNumberByte(p.buf[i]) {
			i++
		}
		if len(p.tok)+i-p.pos > maxNumberLen {
			return nil, p.syntax(off, "a number longer than %d characters", maxNumberLen)
		}
		if i < len(p.buf) { // the number ends in this window
			if len(p.tok) == 0 {
				text = p.buf[p.pos:i]
			} else {
				p.tok = append(p.tok, p.buf[p.pos:i]...)
				text = p.tok
			}
			p.pos = i
			break
		}
		p.tok = append(p.tok, p.buf[p.pos:i]...)
		p.pos = i
		if !p.fill() {
			text = p.tok
			break
		}
	}
	if !validNumber(text) {
		return nil, p.syntax(off, "invalid number %q", text)
	}
	return text, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// scanNumber scans a JSON number from b[i] and returns where it ends, and false if what starts there is not
// one (or is cut by the end of b) or is followed by another byte a number may hold.
func scanNumber(b []byte, i int) (int, bool) {
	digits := func() int {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, false
		}
	}
	return i, i == len(b) || !isNumberByte(b[i])
}

// validNumber reports whether b follows JSON's number grammar.
func validNumber(b []byte) bool {
	end, ok := scanNumber(b, 0)
	return ok && end == len(b)
}

// integer reads the integer value of key name.
func (p *jsonParser) integer(name string) (int, error) {
	off := p.offset()
	text, _, err := p.scalar(name, -1, "an integer", false)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.Atoi(string(text)) // digits only: a fraction or an exponent is refused
	if perr != nil {
		return 0, p.bad(off, p.path(name, -1), string(text), "an integer")
	}
	return v, nil
}

// float reads a finite number: the value of key name, or element elem ≥ 0 of its array.
func (p *jsonParser) float(name string, elem int) (float64, error) {
	off := p.offset()
	text, _, err := p.scalar(name, elem, "a finite number", false)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseFloat(string(text), 64)
	if perr != nil || math.IsInf(v, 0) {
		return 0, p.bad(off, p.path(name, elem), string(text), "a finite number")
	}
	return v, nil
}

// boolean reads true or false, the value of key name.
func (p *jsonParser) boolean(name string) (bool, error) {
	_, b, err := p.scalar(name, -1, "true or false", true)
	return b, err
}

// key reads an object key (a JSON string, escapes decoded) into tok; keys longer than 64 bytes are cut
// (no key of the format is that long).
func (p *jsonParser) key() ([]byte, error) {
	off := p.offset()
	p.pos++ // the opening quote
	// Fast path: a key without escapes that ends in the window is returned in place.
	for i := p.pos; i < len(p.buf) && i-p.pos <= 64; i++ {
		if c := p.buf[i]; c == '"' {
			k := p.buf[p.pos:i]
			p.pos = i + 1
			return k, nil
		} else if c == '\\' || c < 0x20 {
			break
		}
	}
	p.tok = p.tok[:0]
	for {
		if p.pos == len(p.buf) && !p.fill() {
			return nil, p.eofErr()
		}
		c := p.buf[p.pos]
		p.pos++
		switch {
		case c == '"':
			return p.tok, nil
		case c < 0x20:
			return nil, p.syntax(p.offset()-1, "invalid character %s in string literal", quoteByte(c))
		case c == '\\':
			r, err := p.escape(off)
			if err != nil {
				return nil, err
			}
			if len(p.tok) < 64 {
				p.tok = utf8.AppendRune(p.tok, r)
			}
		default:
			if len(p.tok) < 64 {
				p.tok = append(p.tok, c)
			}
		}
	}
}

// escape reads the rest of a backslash escape in a string.
func (p *jsonParser) escape(off int64) (rune, error) {
	next := func() (byte, error) {
		if p.pos == len(p.buf) && !p.fill() {
			return 0, p.eofErr()
		}
		c := p.buf[p.pos]
		p.pos++
		return c, nil
	}
	c, err := next()
	if err != nil {
		return 0, err
	}
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		var r rune
		for range 4 {
			h, err := next()
			if err != nil {
				return 0, err
			}
			v, ok := hexValue(h)
			if !ok {
				return 0, p.syntax(off, "invalid character %s in \\u escape", quoteByte(h))
			}
			r = r<<4 | v
		}
		return r, nil
	}
	return 0, p.syntax(off, "invalid escape \\%c in string literal", c)
}

func hexValue(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// object reads an object whose keys must be among keys (each at most once; keys has at most 8 entries);
// member reads the value of key i. name is the object's key in errors ("" for an array element); what says
// what it is.
func (p *jsonParser) object(name, what string, keys []string, member func(i int) error) (seen uint8, err error) {
	c, ok := p.peek()
	if !ok {
		return 0, p.eofErr()
	}
	if c != '{' {
		if c == 'n' {
			off := p.offset()
			if err := p.literal("null"); err != nil {
				return 0, err
			}
			return 0, p.bad(off, p.path(name, -1), "null", "a value (omit an optional field instead of writing null)")
		}
		if err := p.notValue(c); err != nil {
			return 0, err
		}
		return 0, p.bad(p.offset(), p.path(name, -1), kind(c), "an object ("+what+")")
	}
	p.pos++
	for first := true; ; first = false {
		c, ok := p.peek()
		if !ok {
			return 0, p.eofErr()
		}
		if c == '}' && first {
			p.pos++
			return seen, nil
		}
		if c != '"' {
			return 0, p.syntax(p.offset(), "invalid character %s looking for beginning of object key string", quoteByte(c))
		}
		off := p.offset()
		k, err := p.key()
		if err != nil {
			return 0, err
		}
		i := 0
		for i < len(keys) && string(k) != keys[i] {
			i++
		}
		switch {
		case i == len(keys):
			return 0, p.bad(off, "key", string(k), "one of the keys of "+what+", spelled exactly ("+joinKeys(keys)+")")
		case seen&(1<<i) != 0:
			return 0, p.bad(off, "key", string(k), "each key once per object (this one is repeated)")
		}
		seen |= 1 << i
		if err := p.expect(':', "after object key"); err != nil {
			return 0, err
		}
		if err := member(i); err != nil {
			return 0, err
		}
		c, ok = p.peek()
		if !ok {
			return 0, p.eofErr()
		}
		p.pos++
		switch c {
		case '}':
			return seen, nil
		case ',':
		default:
			return 0, p.syntax(p.offset()-1, "invalid character %s after object key:value pair", quoteByte(c))
		}
	}
}

func joinKeys(keys []string) string {
	var b bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
	}
	return b.String()
}

// array reads the array value of key name, calling elem for element i (which reads it).
func (p *jsonParser) array(name, what string, elem func(i int) error) error {
	c, ok := p.peek()
	if !ok {
		return p.eofErr()
	}
	if c != '[' {
		off := p.offset()
		if c == 'n' {
			if err := p.literal("null"); err != nil {
				return err
			}
			return p.bad(off, p.path(name, -1), "null", "a value (omit an optional field instead of writing null)")
		}
		if err := p.notValue(c); err != nil {
			return err
		}
		return p.bad(off, p.path(name, -1), kind(c), "an array ("+what+")")
	}
	p.pos++
	for i := 0; ; i++ {
		c, ok := p.peek()
		if !ok {
			return p.eofErr()
		}
		if c == ']' && i == 0 {
			p.pos++
			return nil
		}
		if err := elem(i); err != nil {
			return err
		}
		c, ok = p.peek()
		if !ok {
			return p.eofErr()
		}
		p.pos++
		switch c {
		case ']':
			return nil
		case ',':
		default:
			return p.syntax(p.offset()-1, "invalid character %s after array element", quoteByte(c))
		}
	}
}

var (
	datasetKeys    = []string{"obs_dim", "num_actions", "trajectories"}
	trajectoryKeys = []string{"expert", "steps"}
	stepKeys       = []string{"obs", "action", "reward", "next_obs", "terminated", "truncated", "prob"}
)

// observation reads the observation array of key name. Its length must be obs_dim when obs_dim came first
// (an array longer than that is counted without being stored, then refused); otherwise every observation
// must have the first one's length, at most maxObsBeforeDim. The loop is array's, written out for numbers:
// observations are most of a file.
func (p *jsonParser) observation(name string) ([]float64, error) {
	off := p.offset()
	c, ok := p.peek()
	if !ok {
		return nil, p.eofErr()
	}
	if c != '[' {
		return nil, p.array(name, "numbers", nil) // the error for a value that is not an array
	}
	p.pos++
	limit := maxObsBeforeDim
	var out []float64
	if p.obsKnown {
		limit = p.obsLen
		out = make([]float64, 0, p.obsLen)
	}
	n := 0
	if c, ok = p.peek(); ok && c == ']' {
		p.pos++
	} else {
		for {
			if !ok {
				return nil, p.eofErr()
			}
			if c != '-' && (c < '0' || c > '9') {
				_, _, err := p.scalar(name, n, "a finite number", false) // null, another kind, or a syntax error
				return nil, err
			}
			numOff := p.offset()
			text, err := p.number()
			if err != nil {
				return nil, err
			}
			if n < limit {
				v, perr := strconv.ParseFloat(string(text), 64)
				if perr != nil || math.IsInf(v, 0) {
					return nil, p.bad(numOff, p.path(name, n), string(text), "a finite number")
				}
				out = append(out, v)
			} // else counted, not stored
			n++
			if c, ok = p.peek(); !ok {
				return nil, p.eofErr()
			}
			p.pos++
			if c == ']' {
				break
			}
			if c != ',' {
				return nil, p.syntax(p.offset()-1, "invalid character %s after array element", quoteByte(c))
			}
			c, ok = p.peek()
		}
	}
	switch {
	case p.obsKnown && n != p.obsLen && p.hasDim:
		return nil, p.bad(off, p.path(name, -1), fmt.Sprintf("%d values", n), fmt.Sprintf("obs_dim = %d values", p.obsLen))
	case p.obsKnown && n != p.obsLen:
		return nil, p.bad(off, p.path(name, -1), fmt.Sprintf("%d values", n), fmt.Sprintf("%d values, the length of the first observation (obs_dim comes later)", p.obsLen))
	case !p.obsKnown && n > maxObsBeforeDim:
		return nil, p.bad(off, p.path(name, -1), fmt.Sprintf("%d values", n), fmt.Sprintf("at most %d values before obs_dim is given (write obs_dim first, as WriteJSON does)", maxObsBeforeDim))
	}
	p.obsLen, p.obsKnown = n, true
	return out, nil
}

// step reads step p.si of trajectory p.ti.
func (p *jsonParser) step() (Step, error) {
	var s Step
	seen, err := p.object("", "a step", stepKeys, func(i int) error {
		var err error
		switch i {
		case 0:
			s.Obs, err = p.observation("obs")
		case 1:
			s.Action, err = p.integer("action")
		case 2:
			s.Reward, err = p.float("reward", -1)
		case 3:
			s.NextObs, err = p.observation("next_obs")
		case 4:
			s.Terminated, err = p.boolean("terminated")
		case 5:
			s.Truncated, err = p.boolean("truncated")
		case 6:
			s.Prob, err = p.float("prob", -1)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	for i := range 4 { // obs, action, reward and next_obs are required
		if seen&(1<<i) == 0 {
			return s, p.missing(stepKeys[i])
		}
	}
	return s, nil
}

// missing is the error for the required key name of the object being read.
func (p *jsonParser) missing(name string) error {
	return &DataError{Field: p.path(name, -1), Value: "null", Allowed: "a value (the field is required)"}
}

// trajectory reads trajectory p.ti.
func (p *jsonParser) trajectory() (Trajectory, error) {
	var tr Trajectory
	p.si = -1
	seen, err := p.object("", "a trajectory", trajectoryKeys, func(i int) error {
		if i == 0 {
			var err error
			tr.Expert, err = p.integer("expert")
			return err
		}
		err := p.array("steps", "steps", func(t int) error {
			p.si = t
			s, err := p.step()
			p.steps.add(s)
			return err
		})
		tr.Steps = p.steps.take() // present, even if empty
		if err == nil {
			p.si = -1
		}
		return err
	})
	if err != nil {
		return tr, err
	}
	for i, k := range trajectoryKeys {
		if seen&(1<<i) == 0 {
			return tr, p.missing(k)
		}
	}
	return tr, nil
}

// dataset reads the whole input: one dataset object and nothing after it.
func (p *jsonParser) dataset() (*Dataset, error) {
	p.ti, p.si = -1, -1
	if _, ok := p.peek(); !ok {
		if p.readErr != nil {
			return nil, &DataError{Err: p.readErr}
		}
		return nil, &DataError{Line: 1, Field: "dataset", Value: "", Allowed: "one JSON object (the input is empty: empty dataset)"}
	}
	seen, err := p.object("dataset", "a dataset", datasetKeys, func(i int) error {
		var err error
		switch i {
		case 0:
			// Observations read from here on are checked against obs_dim as they are read (earlier ones are
			// checked by Validate).
			if p.d.ObsDim, err = p.integer("obs_dim"); err == nil && p.d.ObsDim >= 1 && !p.obsKnown {
				p.obsLen, p.obsKnown, p.hasDim = p.d.ObsDim, true, true
			}
		case 1:
			p.d.NumActions, err = p.integer("num_actions")
		case 2:
			err = p.array("trajectories", "trajectories", func(i int) error {
				p.ti = i
				tr, err := p.trajectory()
				p.trajs.add(tr)
				return err
			})
			p.d.Trajectories = p.trajs.take() // present, even if empty
			if err == nil {
				p.ti = -1
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, ok := p.peek(); ok {
		return nil, p.syntax(p.offset(), "data after the dataset: a file holds exactly one JSON dataset")
	}
	if p.readErr != nil {
		return nil, &DataError{Err: p.readErr}
	}
	for i, k := range datasetKeys {
		if seen&(1<<i) == 0 {
			return nil, p.missing(k)
		}
	}
	return &p.d, nil
}

// ReadJSON reads a dataset in the format WriteJSON writes: exactly one JSON object, keys spelled exactly and
// never repeated, obs_dim, num_actions and trajectories required, expert and steps in every trajectory, obs,
// action, reward and next_obs in every step (terminated and truncated default to false, prob to 0: unknown);
// then the dataset is validated (see Validate). Errors are *DataError values naming the field's JSON path
// (trajectories[2].steps[0].action) or, for syntax errors, the line and column.
//
// The input is read as a stream through one 64 KiB window, in time linear in its size; the format's
// structure is followed as it is read, so a value of the wrong kind — an array nested deeper than
// JSONMaxDepth, a string where a number belongs — is refused where it starts, and an observation longer
// than obs_dim is refused without being stored. Memory is the dataset being built plus the window.
func ReadJSON(r io.Reader) (*Dataset, error) {
	p := &jsonParser{r: r}
	d, err := p.dataset()
	if err != nil {
		var de *DataError
		if !errors.As(err, &de) {
			err = &DataError{Err: err}
		}
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}
