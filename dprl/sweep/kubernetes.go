package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dprl-project/dprl/dprl/param"
)

// DefaultImage is the image the Kubernetes manifests run when none is given: the dprl command alone, built
// from docker/cmd.Dockerfile (its entrypoint is dprl).
const DefaultImage = "localhost/dprl-cmd:latest"

// ImageUser is the user and group id the manifests' pods run as: the "nonroot" user (65532) that
// docker/cmd.Dockerfile's image runs as. The pods' fsGroup is the same id, so the results claim is writable
// by it (on volumes whose ownership Kubernetes manages; otherwise the volume must grant it write access).
const ImageUser = 65532

// KubernetesOptions configure the Kubernetes manifest.
type KubernetesOptions struct {
	Image       string // a container image whose entrypoint is dprl ("": DefaultImage)
	Claim       string // the PersistentVolumeClaim the results go to (ReadWriteMany when pods share it; required)
	Namespace   string // "" : the kubectl context's
	MountPath   string // where the claim is mounted (default /results); results go to <MountPath>/<spec name>
	Parallelism int    // pods at once (0: every shard)
	CPU         string // the container's CPU request and limit, e.g. "2" (default "1"); also GOMAXPROCS
	Memory      string // the memory request and limit, e.g. "4Gi" (default "2Gi"); the merge pod's too
	Retries     int    // backoffLimitPerIndex: how many times a failed shard is run again (0: never)
	// Grace is the pods' terminationGracePeriodSeconds (0: 120): on eviction or preemption a shard gets
	// SIGTERM, checkpoints its finished tasks and exits with ExitStopped, which the pod failure policy does
	// not count as a failure, so the replacement pod resumes after them.
	Grace int
	// MergeTimeout bounds how long the merge Job waits for the shards (0: 7 days).
	MergeTimeout time.Duration
}

// Object is an ordered JSON/YAML object (key order is kept when written).
type Object []Field

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any // string, int, bool, Object or []any
}

// MarshalJSON writes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var dnsLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// K8sName turns a spec name into a DNS-1123 label (lower case, digits and '-', at most 63 characters,
// starting and ending alphanumeric) with the given prefix.
func K8sName(prefix, name string) string {
	s := dnsLabel.ReplaceAllString(strings.ToLower(prefix+name), "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-")
}

// K8s names of a sweep's objects.
func k8sJobName(spec string) string   { return K8sName("dprl-sweep-", spec) }
func k8sMergeName(spec string) string { return K8sName("dprl-sweep-merge-", spec) }

// KubernetesObjects returns the manifest's objects: a ConfigMap holding the canonical spec; an Indexed Job
// (completionMode Indexed, one completion per shard, backoffLimitPerIndex retries, restartPolicy Never, a
// pod failure policy that does not count disruptions and SIGTERM stops as failures, the results claim
// mounted) whose pods run `dprl sweep run` with the shard from JOB_COMPLETION_INDEX; and a merge Job whose
// pod runs `dprl sweep merge --wait`: it waits for every shard and merges, or gives up once a shard has
// failed more often than the Indexed Job retries it. Both Jobs' pods run as ImageUser (non-root, fsGroup
// ImageUser, so the claim is writable by it) under the restricted Pod Security Standard.
func (p *Plan) KubernetesObjects(opt KubernetesOptions) ([]Object, error) {
	if opt.Image == "" {
		opt.Image = DefaultImage
	}
	if opt.Claim == "" {
		return nil, check.Missing("Claim", "a PersistentVolumeClaim name for the results")
	}
	if err := param.First(check.AtLeast("Parallelism", opt.Parallelism, 0), check.Int("Retries", opt.Retries, 0, 100),
		check.Int("Grace", opt.Grace, 0, 86400), check.In("MergeTimeout", opt.MergeTimeout.Seconds(), param.NonNegative)); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"Image", opt.Image}, {"Claim", opt.Claim}, {"Namespace", opt.Namespace}, {"MountPath", opt.MountPath}, {"CPU", opt.CPU}, {"Memory", opt.Memory}} {
		if strings.ContainsAny(f.v, "\n\r") {
			return nil, badValue(f.name, f.v, "values without line breaks")
		}
	}
	if opt.MountPath == "" {
		opt.MountPath = "/results"
	}
	if !strings.HasPrefix(opt.MountPath, "/") {
		return nil, badValue("MountPath", opt.MountPath, "absolute paths")
	}
	if opt.CPU == "" {
		opt.CPU = "1"
	}
	if opt.Memory == "" {
		opt.Memory = "2Gi"
	}
	if opt.Grace == 0 {
		opt.Grace = 120
	}
	if opt.MergeTimeout == 0 {
		opt.MergeTimeout = 7 * 24 * time.Hour
	}
	n := p.Spec.Shards()
	par := n
	if opt.Parallelism > 0 {
		par = min(opt.Parallelism, n)
	}
	name, mergeName := k8sJobName(p.Spec.Name), k8sMergeName(p.Spec.Name)
	cmName := K8sName("dprl-sweep-spec-", p.Spec.Name)
	labels := Object{{"app.kubernetes.io/name", "dprl-sweep"}, {"dprl/spec", K8sName("", p.Spec.Name)}, {"dprl/spec-hash", p.Hash[:16]}}
	meta := func(n string) Object {
		o := Object{{"name", n}}
		if opt.Namespace != "" {
			o = append(o, Field{"namespace", opt.Namespace})
		}
		return append(o, Field{"labels", labels})
	}
	out := strings.TrimSuffix(opt.MountPath, "/") + "/" + p.Spec.Name
	workers := "1"
	if c, err := strconv.ParseFloat(opt.CPU, 64); err == nil && c >= 1 && c < math.MaxInt32 {
		workers = strconv.Itoa(int(math.Floor(c)))
	}
	cm := Object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta(cmName)},
		{"data", Object{{SpecFile, string(p.Spec.Canonical())}}}}
	res := Object{{"cpu", opt.CPU}, {"memory", opt.Memory}}
	resultsVolume := Object{{"name", "results"}, {"persistentVolumeClaim", Object{{"claimName", opt.Claim}}}}
	resultsMount := Object{{"name", "results"}, {"mountPath", opt.MountPath}}
	// Both pods run as ImageUser, never as root, with the results claim group-owned by it (its ownership
	// changed only when its root does not match, not file by file on every start), and meet the
	// "restricted" Pod Security Standard: no privilege escalation, no capabilities, the runtime's seccomp
	// profile.
	podSecurity := Object{{"runAsNonRoot", true}, {"runAsUser", ImageUser}, {"runAsGroup", ImageUser},
		{"fsGroup", ImageUser}, {"fsGroupChangePolicy", "OnRootMismatch"}, {"seccompProfile", Object{{"type", "RuntimeDefault"}}}}
	containerSecurity := Object{{"allowPrivilegeEscalation", false}, {"capabilities", Object{{"drop", []any{"ALL"}}}}}
	job := Object{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", meta(name)},
		{"spec", Object{
			{"completionMode", "Indexed"},
			{"completions", n},
			{"parallelism", par},
			{"backoffLimitPerIndex", opt.Retries},
			{"podFailurePolicy", Object{{"rules", []any{
				Object{{"action", "Ignore"}, {"onPodConditions", []any{Object{{"type", "DisruptionTarget"}, {"status", "True"}}}}},
				Object{{"action", "Ignore"}, {"onExitCodes", Object{{"containerName", "shard"}, {"operator", "In"}, {"values", []any{ExitStopped}}}}},
			}}}},
			{"template", Object{
				{"metadata", Object{{"labels", labels}}},
				{"spec", Object{
					{"restartPolicy", "Never"},
					{"terminationGracePeriodSeconds", opt.Grace},
					{"securityContext", podSecurity},
					{"containers", []any{Object{
						{"name", "shard"},
						{"image", opt.Image},
						{"args", []any{"sweep", "run", "/spec/" + SpecFile, "--out", out, "--workers", workers}},
						{"env", []any{Object{{"name", "GOMAXPROCS"}, {"value", workers}}}},
						{"resources", Object{{"requests", res}, {"limits", res}}},
						{"volumeMounts", []any{resultsMount, Object{{"name", "spec"}, {"mountPath", "/spec"}, {"readOnly", true}}}},
						{"securityContext", containerSecurity},
					}}},
					{"volumes", []any{resultsVolume, Object{{"name", "spec"}, {"configMap", Object{{"name", cmName}}}}}},
				}},
			}},
		}}}
	timeout := opt.MergeTimeout.Round(time.Second)
	merge := Object{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", meta(mergeName)},
		{"spec", Object{
			{"backoffLimit", 3},
			{"activeDeadlineSeconds", int64(timeout.Seconds()) + 600},
			{"template", Object{
				{"metadata", Object{{"labels", labels}}},
				{"spec", Object{
					{"restartPolicy", "Never"},
					{"securityContext", podSecurity},
					{"containers", []any{Object{
						{"name", "merge"},
						{"image", opt.Image},
						{"args", []any{"sweep", "merge", out, "--wait", "--timeout", timeout.String(), "--give-up-after", strconv.Itoa(opt.Retries + 1)}},
						{"resources", Object{{"requests", Object{{"cpu", "100m"}, {"memory", opt.Memory}}}, {"limits", Object{{"memory", opt.Memory}}}}},
						{"volumeMounts", []any{resultsMount}},
						{"securityContext", containerSecurity},
					}}},
					{"volumes", []any{resultsVolume}},
				}},
			}},
		}}}
	return []Object{cm, job, merge}, nil
}

// Kubernetes writes KubernetesObjects as a YAML manifest for `kubectl apply -f`; the header comment says
// how to follow and resume the sweep.
func (p *Plan) Kubernetes(opt KubernetesOptions) (string, error) {
	objs, err := p.KubernetesObjects(opt)
	if err != nil {
		return "", err
	}
	s := p.Spec
	var b strings.Builder
	fmt.Fprintf(&b, "# Sweep %s (experiment %s, spec hash %s…): %d tasks in %d shards of %d.\n", s.Name, s.Experiment, p.Hash[:12], s.Tasks(), s.Shards(), s.ShardSize)
	fmt.Fprintf(&b, "# Written by `dprl sweep k8s`. kubectl apply -f THIS_FILE starts the Indexed Job %s (one pod per shard) and\n", k8sJobName(s.Name))
	fmt.Fprintf(&b, "# the Job %s, which waits for every shard and merges into <claim %s>/%s/merged.csv.\n", k8sMergeName(s.Name), opt.Claim, s.Name)
	fmt.Fprintf(&b, "# Follow with dprl sweep status DIR --engine kubernetes; stop with dprl sweep cancel DIR --engine kubernetes.\n")
	fmt.Fprintf(&b, "# To resume after failures, delete both Jobs and apply again: complete shards are skipped.\n")
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		writeYAML(&b, o, 0)
	}
	return b.String(), nil
}

// kubectl runs kubectl with the namespace option when one is given.
func kubectl(ctx context.Context, opt EngineOptions, args ...string) ([]byte, error) {
	if opt.Namespace != "" {
		args = append([]string{"--namespace", opt.Namespace}, args...)
	}
	return engineCommand(ctx, "kubectl", args...)
}

func askKubernetes(ctx context.Context, s *Status, opt EngineOptions) *EngineState {
	e := &EngineState{Name: "kubernetes", Shards: map[int]ShardJob{}}
	job := opt.Job
	if job == "" {
		job = k8sJobName(s.Spec.Name)
	}
	out, err := kubectl(ctx, opt, "get", "job", job, "-o", "json")
	if err != nil {
		e.Err = err
		return e
	}
	var j struct {
		Status struct {
			CompletedIndexes string `json:"completedIndexes"`
			FailedIndexes    string `json:"failedIndexes"`
			Active           int    `json:"active"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		e.Err = fmt.Errorf("kubectl get job %s: %v", job, err)
		return e
	}
	for _, st := range []struct{ list, state string }{{j.Status.CompletedIndexes, "completed"}, {j.Status.FailedIndexes, "failed"}} {
		if st.list == "" {
			continue
		}
		idx, _ := ParseIndexList(st.list, s.Shards)
		for _, i := range idx {
			e.Shards[i] = ShardJob{Job: fmt.Sprintf("%s-%d", job, i), State: st.state, Detail: "index " + st.state + " (Job status)"}
		}
	}
	if out, err := kubectl(ctx, opt, "get", "pods", "-l", "job-name="+job, "-o", "json"); err == nil {
		var pods struct {
			Items []struct {
				Metadata struct {
					Name        string            `json:"name"`
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
				Status struct {
					Phase string `json:"phase"`
				} `json:"status"`
			} `json:"items"`
		}
		if json.Unmarshal(out, &pods) == nil {
			for _, p := range pods.Items {
				i, err := strconv.Atoi(p.Metadata.Annotations["batch.kubernetes.io/job-completion-index"])
				state := map[string]string{"Pending": "pending", "Running": "running"}[p.Status.Phase]
				if err != nil || state == "" {
					continue
				}
				if old, ok := e.Shards[i]; !ok || old.State == "failed" {
					e.Shards[i] = ShardJob{Job: p.Metadata.Name, State: state, Detail: "pod " + p.Status.Phase}
				}
			}
		}
	}
	e.Summary = fmt.Sprintf("Job %s: %d active pods, completed indexes %q, failed indexes %q", job, j.Status.Active, j.Status.CompletedIndexes, j.Status.FailedIndexes)
	return e
}

func cancelKubernetes(ctx context.Context, st *Status, opt EngineOptions) (string, error) {
	jobs := []string{opt.Job, k8sMergeName(st.Spec.Name)}
	if opt.Job == "" {
		jobs[0] = k8sJobName(st.Spec.Name)
	}
	out, err := kubectl(ctx, opt, append([]string{"delete", "job", "--ignore-not-found"}, jobs...)...)
	if err != nil {
		return "", err
	}
	msg := strings.TrimSpace(string(out))
	if msg == "" {
		msg = "no Job " + strings.Join(jobs, " or ") + " was there"
	}
	return msg + "; finished shards stay done (apply the manifest again to run the rest)", nil
}

// writeYAML writes v in block style; scalars are JSON-encoded (valid YAML flow scalars).
func writeYAML(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat("  ", indent)
	switch x := v.(type) {
	case Object:
		for _, f := range x {
			k, _ := json.Marshal(f.Key)
			key := string(k)
			if regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./-]*$`).MatchString(f.Key) {
				key = f.Key
			}
			switch c := f.Value.(type) {
			case Object:
				fmt.Fprintf(b, "%s%s:\n", pad, key)
				writeYAML(b, c, indent+1)
			case []any:
				fmt.Fprintf(b, "%s%s:\n", pad, key)
				writeYAML(b, c, indent+1)
			default:
				fmt.Fprintf(b, "%s%s: %s\n", pad, key, scalar(c))
			}
		}
	case []any:
		for _, e := range x {
			switch c := e.(type) {
			case Object:
				var sub strings.Builder
				writeYAML(&sub, c, indent+1)
				s := sub.String()
				// the first line's indentation becomes "- "
				fmt.Fprintf(b, "%s- %s", pad, strings.TrimPrefix(s, strings.Repeat("  ", indent+1)))
			default:
				fmt.Fprintf(b, "%s- %s\n", pad, scalar(c))
			}
		}
	}
}

func scalar(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
