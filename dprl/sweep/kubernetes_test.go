package sweep

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kubernetesSchemas are the pinned OpenAPI v3 documents of testdata/kubernetes (README.md there names their
// source): file → SHA-256 of the uncompressed document.
var kubernetesSchemas = map[string]map[string]string{
	"v1.29.15": {
		"apis__batch__v1_openapi.json": "f0045d1b84948b237b1b0883defd98897456803a7fcaba78c17b991e530e6d35",
		"api__v1_openapi.json":         "0209abe39d5018a72a414dddd6494f5fd8c2f821f2ce6bb33a6055ede2a96c05",
	},
	"v1.37.2": {
		"apis__batch__v1_openapi.json": "39e41a47689d58ed0ba29c7e576fd88a47917b5c00dd2efaab71c9cf90a6b5f7",
		"api__v1_openapi.json":         "d09ab224a98fb9c0e7fd128b6f395f66b23d43b6635272109dcaaafc4a3dd9c9",
	},
}

// openAPI is a Kubernetes OpenAPI v3 document's schemas, and a validator for the subset of JSON Schema
// they use: $ref, allOf, oneOf, type, format (int32, int64), properties, additionalProperties, required,
// items and enum. Objects with properties are closed: an unknown field is an error, as with
// `kubectl apply --validate=strict` (Kubernetes' schemas mark open objects with additionalProperties or
// x-kubernetes-preserve-unknown-fields).
type openAPI map[string]map[string]any

func loadOpenAPI(t *testing.T, version string) openAPI {
	t.Helper()
	out := openAPI{}
	for file, want := range kubernetesSchemas[version] {
		f, err := os.Open(filepath.Join("testdata", "kubernetes", version+"-"+file+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != want {
			t.Fatalf("%s %s: sha256 %x, pinned %s", version, file, sum, want)
		}
		var doc struct {
			Components struct {
				Schemas map[string]map[string]any `json:"schemas"`
			} `json:"components"`
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		for k, v := range doc.Components.Schemas {
			out[k] = v
		}
	}
	return out
}

// schemaFor finds the schema of apiVersion and kind by its x-kubernetes-group-version-kind.
func (o openAPI) schemaFor(apiVersion, kind string) map[string]any {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	for _, s := range o {
		gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			m := g.(map[string]any)
			if m["group"] == group && m["version"] == version && m["kind"] == kind {
				return s
			}
		}
	}
	return nil
}

// validateObject validates one manifest object (JSON decoded with UseNumber) and returns every problem.
func (o openAPI) validateObject(obj map[string]any) []string {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	s := o.schemaFor(apiVersion, kind)
	if s == nil {
		return []string{fmt.Sprintf("no schema for %s %s", apiVersion, kind)}
	}
	var errs []string
	o.validate(kind, obj, s, &errs)
	return errs
}

func (o openAPI) validate(path string, v any, s map[string]any, errs *[]string) {
	fail := func(format string, args ...any) { *errs = append(*errs, path+": "+fmt.Sprintf(format, args...)) }
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, ok := o[name]
		if !ok {
			fail("unresolved $ref %s", ref)
			return
		}
		o.validate(path, v, target, errs)
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			o.validate(path, v, sub.(map[string]any), errs)
		}
	}
	if one, ok := s["oneOf"].([]any); ok {
		matches := 0
		for _, sub := range one {
			var e []string
			o.validate(path, v, sub.(map[string]any), &e)
			if len(e) == 0 {
				matches++
			}
		}
		if matches != 1 {
			fail("%v matches %d of the %d alternatives of oneOf, want exactly one", v, matches, len(one))
		}
	}
	if typ, ok := s["type"].(string); ok && !hasType(v, typ) {
		fail("%v (%T) is not of type %s", v, v, typ)
		return
	}
	if format, ok := s["format"].(string); ok && (format == "int32" || format == "int64") {
		if n, ok := v.(json.Number); ok {
			i, err := n.Int64()
			if err != nil || format == "int32" && (i < math.MinInt32 || i > math.MaxInt32) {
				fail("%v is not an %s", v, format)
			}
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		fail("%v is not one of %v", v, enum)
	}
	if obj, ok := v.(map[string]any); ok {
		props, hasProps := s["properties"].(map[string]any)
		extra, hasExtra := s["additionalProperties"].(map[string]any)
		_, open := s["x-kubernetes-preserve-unknown-fields"]
		for k, fv := range obj {
			switch ps, known := props[k].(map[string]any); {
			case known:
				o.validate(path+"."+k, fv, ps, errs)
			case hasExtra:
				o.validate(path+"."+k, fv, extra, errs)
			case hasProps && !open:
				fail("unknown field %q", k)
			}
		}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					fail("missing required field %q", r)
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				o.validate(fmt.Sprintf("%s[%d]", path, i), e, items, errs)
			}
		}
	}
}

func hasType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return true
}

// manifestObjects decodes KubernetesObjects as a client would read them.
func manifestObjects(t *testing.T, objs []Object) []map[string]any {
	t.Helper()
	b, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out []map[string]any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKubernetesManifestsValidate: the ConfigMap, the Indexed Job and the merge Job validate against the
// pinned Kubernetes 1.29 and 1.37 schemas, and the validator does reject broken objects.
func TestKubernetesManifestsValidate(t *testing.T) {
	p := mustPlan(t, demoSpec)
	objs, err := p.KubernetesObjects(KubernetesOptions{Claim: "sweep-results", Namespace: "rl", Parallelism: 2, CPU: "2", Memory: "3Gi", Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	docs := manifestObjects(t, objs)
	if len(docs) != 3 || docs[0]["kind"] != "ConfigMap" || docs[1]["kind"] != "Job" || docs[2]["kind"] != "Job" {
		t.Fatalf("objects: %v", docs)
	}
	for version := range kubernetesSchemas {
		api := loadOpenAPI(t, version)
		for _, d := range docs {
			if errs := api.validateObject(d); len(errs) > 0 {
				t.Errorf("%s: %s %s does not validate:\n  %s", version, d["kind"], d["metadata"].(map[string]any)["name"], strings.Join(errs, "\n  "))
			}
		}
		// The validator must catch what a cluster would refuse.
		for _, c := range []struct {
			name   string
			mutate func(job map[string]any)
			want   string
		}{
			{"unknown field", func(j map[string]any) { j["spec"].(map[string]any)["backoffLimitPerIndx"] = json.Number("2") }, `unknown field "backoffLimitPerIndx"`},
			{"string for an integer", func(j map[string]any) { j["spec"].(map[string]any)["completions"] = "4" }, "is not of type integer"},
			{"int32 overflow", func(j map[string]any) { j["spec"].(map[string]any)["parallelism"] = json.Number("4294967296") }, "is not an int32"},
			{"no containers", func(j map[string]any) {
				delete(j["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any), "containers")
			}, `missing required field "containers"`},
			{"a misspelt pod security field", func(j map[string]any) {
				sc := j["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["securityContext"].(map[string]any)
				sc["runAsUsr"] = sc["runAsUser"]
			}, `unknown field "runAsUsr"`},
			{"a container without a name", func(j map[string]any) {
				c := j["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
				delete(c, "name")
			}, `missing required field "name"`},
		} {
			broken := manifestObjects(t, objs)[1]
			c.mutate(broken)
			if errs := api.validateObject(broken); !strings.Contains(strings.Join(errs, "\n"), c.want) {
				t.Errorf("%s: %s: errors %v, want %q", version, c.name, errs, c.want)
			}
		}
	}
}

// TestKubernetesManifest checks the fields a sweep needs, on the JSON form and (with Python's yaml module,
// when installed) that the YAML says the same.
func TestKubernetesManifest(t *testing.T) {
	p := mustPlan(t, demoSpec)
	if _, err := p.KubernetesObjects(KubernetesOptions{}); err == nil || !strings.Contains(err.Error(), "Claim is missing") {
		t.Errorf("no claim: %v", err)
	}
	if _, err := p.KubernetesObjects(KubernetesOptions{Claim: "c", Retries: -1}); err == nil || !strings.Contains(err.Error(), "Retries = -1") {
		t.Errorf("Retries -1: %v", err)
	}
	opt := KubernetesOptions{Image: "registry.example/dprl:v1", Claim: "sweep-results", Namespace: "rl", Parallelism: 2, CPU: "2", Memory: "3Gi", Retries: 2}
	objs, err := p.KubernetesObjects(opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(objs)
	type container struct {
		Name            string
		Image           string
		Args            []string
		VolumeMounts    []struct{ Name, MountPath string } `json:"volumeMounts"`
		SecurityContext *struct {
			AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation"`
			Capabilities             struct{ Drop []string }
		} `json:"securityContext"`
	}
	type podSecurity struct {
		RunAsNonRoot        *bool                 `json:"runAsNonRoot"`
		RunAsUser           *int                  `json:"runAsUser"`
		RunAsGroup          *int                  `json:"runAsGroup"`
		FSGroup             *int                  `json:"fsGroup"`
		FSGroupChangePolicy string                `json:"fsGroupChangePolicy"`
		SeccompProfile      struct{ Type string } `json:"seccompProfile"`
	}
	var docs []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Metadata   struct{ Name, Namespace string }
		Data       map[string]string
		Spec       struct {
			CompletionMode       string `json:"completionMode"`
			Completions          int
			Parallelism          int
			BackoffLimitPerIndex int `json:"backoffLimitPerIndex"`
			PodFailurePolicy     struct {
				Rules []struct {
					Action      string
					OnExitCodes *struct{ Values []int } `json:"onExitCodes"`
				}
			} `json:"podFailurePolicy"`
			Template struct {
				Spec struct {
					RestartPolicy   string       `json:"restartPolicy"`
					Grace           int          `json:"terminationGracePeriodSeconds"`
					SecurityContext *podSecurity `json:"securityContext"`
					Containers      []container
					Volumes         []struct {
						Name                  string
						PersistentVolumeClaim *struct{ ClaimName string } `json:"persistentVolumeClaim"`
						ConfigMap             *struct{ Name string }      `json:"configMap"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b, &docs); err != nil || len(docs) != 3 {
		t.Fatalf("%v %s", err, b)
	}
	cm, job, merge := docs[0], docs[1], docs[2]
	if cm.Kind != "ConfigMap" || cm.Data[SpecFile] != string(p.Spec.Canonical()) || cm.Metadata.Namespace != "rl" {
		t.Errorf("ConfigMap %+v", cm)
	}
	js := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || js.CompletionMode != "Indexed" || js.Completions != p.Spec.Shards() ||
		js.Parallelism != 2 || js.BackoffLimitPerIndex != 2 || js.Template.Spec.RestartPolicy != "Never" || js.Template.Spec.Grace != 120 || job.Metadata.Name != "dprl-sweep-demo" {
		t.Errorf("Job spec %+v", job)
	}
	if r := js.PodFailurePolicy.Rules; len(r) != 2 || r[0].Action != "Ignore" || r[1].OnExitCodes == nil || fmt.Sprint(r[1].OnExitCodes.Values) != fmt.Sprint([]int{ExitStopped}) {
		t.Errorf("pod failure policy %+v: disruptions and SIGTERM stops (exit %d) must not count as failures", js.PodFailurePolicy, ExitStopped)
	}
	ct := js.Template.Spec.Containers
	if len(ct) != 1 || ct[0].Image != opt.Image || strings.Join(ct[0].Args, " ") != "sweep run /spec/spec.json --out /results/demo --workers 2" {
		t.Errorf("containers %+v", ct)
	}
	mounts := map[string]string{}
	for _, m := range ct[0].VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	vols := js.Template.Spec.Volumes
	if mounts["results"] != "/results" || mounts["spec"] != "/spec" || len(vols) != 2 || vols[0].PersistentVolumeClaim == nil ||
		vols[0].PersistentVolumeClaim.ClaimName != "sweep-results" || vols[1].ConfigMap == nil || vols[1].ConfigMap.Name != cm.Metadata.Name {
		t.Errorf("volumes %+v mounts %v", vols, mounts)
	}
	mc := merge.Spec.Template.Spec.Containers
	if merge.Metadata.Name != "dprl-sweep-merge-demo" || merge.Spec.CompletionMode != "" || len(mc) != 1 || mc[0].Image != opt.Image ||
		strings.Join(mc[0].Args, " ") != "sweep merge /results/demo --wait --timeout 168h0m0s --give-up-after 3" ||
		len(merge.Spec.Template.Spec.Volumes) != 1 || merge.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "sweep-results" {
		t.Errorf("merge Job %+v", merge)
	}
	// Both pods run as the image's non-root user, with the results claim group-owned by it, under the
	// restricted Pod Security Standard.
	for _, pod := range []struct {
		name string
		sc   *podSecurity
		ct   []container
	}{{"shard", js.Template.Spec.SecurityContext, ct}, {"merge", merge.Spec.Template.Spec.SecurityContext, mc}} {
		sc := pod.sc
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != ImageUser ||
			sc.RunAsGroup == nil || *sc.RunAsGroup != ImageUser || sc.FSGroup == nil || *sc.FSGroup != ImageUser ||
			sc.FSGroupChangePolicy != "OnRootMismatch" || sc.SeccompProfile.Type != "RuntimeDefault" {
			t.Errorf("%s pod securityContext %+v: want non-root user, group and fsGroup %d", pod.name, sc, ImageUser)
		}
		if c := pod.ct[0].SecurityContext; c == nil || c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation ||
			fmt.Sprint(c.Capabilities.Drop) != "[ALL]" {
			t.Errorf("%s container securityContext %+v: want no privilege escalation, every capability dropped", pod.name, c)
		}
	}
	def, _ := p.KubernetesObjects(KubernetesOptions{Claim: "c"})
	if !strings.Contains(fmt.Sprint(def[1]), DefaultImage) {
		t.Errorf("without an image the manifests do not run %s", DefaultImage)
	}
	text, err := p.Kubernetes(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"completionMode: \"Indexed\"", "completions: 4", "restartPolicy: \"Never\"", "claimName: \"sweep-results\"", "name: \"dprl-sweep-merge-demo\""} {
		if !strings.Contains(text, line) {
			t.Errorf("YAML lacks %q:\n%s", line, text)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import yaml").Run() != nil {
		t.Log("python3 with yaml not available: the YAML is checked by its lines only")
		return
	}
	cmd := exec.Command(py, "-c", "import sys, yaml, json; print(json.dumps(list(yaml.safe_load_all(sys.stdin)), sort_keys=True))")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("YAML does not parse: %v\n%s", err, text)
	}
	var fromYAML, fromJSON any
	json.Unmarshal(out, &fromYAML)
	json.Unmarshal(b, &fromJSON)
	y, _ := json.Marshal(fromYAML)
	j, _ := json.Marshal(fromJSON)
	if !bytes.Equal(y, j) {
		t.Errorf("the YAML and JSON forms differ:\n%s\n%s", y, j)
	}
}

// TestKubernetesStatusAndCancel: with kubectl (a stand-in on PATH answering as a cluster would), status
// sorts the shards by the Job's completed and failed indexes and its pods' phases, and cancel deletes both
// Jobs.
func TestKubernetesStatusAndCancel(t *testing.T) {
	p := mustPlan(t, demoSpec)
	dir := t.TempDir()
	if _, err := p.RunShard(0, RunOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	log := fakeCommands(t, map[string]string{"kubectl": `
case "$*" in
*"get job dprl-sweep-demo -o json"*) echo '{"status": {"completedIndexes": "0", "failedIndexes": "3", "active": 2}}' ;;
*"get pods"*) echo '{"items": [
	{"metadata": {"name": "dprl-sweep-demo-1-abc", "annotations": {"batch.kubernetes.io/job-completion-index": "1"}}, "status": {"phase": "Running"}},
	{"metadata": {"name": "dprl-sweep-demo-2-def", "annotations": {"batch.kubernetes.io/job-completion-index": "2"}}, "status": {"phase": "Pending"}}]}' ;;
*"delete job"*) echo 'job.batch "dprl-sweep-demo" deleted'; echo 'job.batch "dprl-sweep-merge-demo" deleted' ;;
*) exit 1 ;;
esac`})
	st, err := ReadStatus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AskEngine(context.Background(), EngineOptions{Engine: "kubernetes", Namespace: "rl"}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	st.Write(&b)
	for _, want := range []string{"4 shards: 1 done, 1 running, 1 pending, 1 failed", "running: 1 (jobs dprl-sweep-demo-1-abc)", "pending: 2 (jobs dprl-sweep-demo-2-def)", "failed: 3"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
	msg, err := Cancel(context.Background(), dir, EngineOptions{Engine: "kubernetes", Namespace: "rl"})
	if err != nil || !strings.Contains(msg, `"dprl-sweep-merge-demo" deleted`) {
		t.Errorf("cancel: %q %v", msg, err)
	}
	if calls := readFile(t, log); !strings.Contains(calls, "kubectl --namespace rl delete job --ignore-not-found dprl-sweep-demo dprl-sweep-merge-demo") {
		t.Errorf("kubectl calls:\n%s", calls)
	}
}
