// Package deploy holds what docker-compose.yml mounts (Temporal's setup scripts, Prometheus's
// configuration, Grafana's provisioning and dashboard) and the test that checks them all where no
// Docker is at hand: the same essentials `docker compose config` would refuse, and ours.
package deploy

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type compose struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	Command     any               `yaml:"command"`
	Entrypoint  any               `yaml:"entrypoint"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	StopGracePeriod string `yaml:"stop_grace_period"`
	Healthcheck     *struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		StartPeriod string   `yaml:"start_period"`
		Retries     int      `yaml:"retries"`
	} `yaml:"healthcheck"`
}

func load(t *testing.T) compose {
	t.Helper()
	data, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true) // a misspelt key is an error, as in `docker compose config`
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// pinned is an image reference with an explicit tag other than latest (or a digest).
var pinned = regexp.MustCompile(`^[a-z0-9./_-]+(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?$`)

func TestComposeFile(t *testing.T) {
	c := load(t)
	for _, name := range []string{"postgres", "temporal-schema", "temporal", "temporal-namespace", "temporal-setup", "temporal-ui", "minio",
		"minio-init", "migrate", "api", "worker", "prometheus", "grafana"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("service %s is missing", name)
		}
	}
	images := map[string]string{}
	for name, s := range c.Services {
		switch {
		case (s.Image == "") == (s.Build == nil):
			t.Errorf("%s: needs exactly one of image and build", name)
		case s.Image != "":
			repo, tag, _ := strings.Cut(s.Image, ":")
			images[name] = repo
			if !pinned.MatchString(s.Image) || (tag == "" && !strings.Contains(s.Image, "@sha256:")) || tag == "latest" ||
				strings.HasPrefix(tag, "latest@") {
				t.Errorf("%s: image %q is not pinned to a tag", name, s.Image)
			}
			if repo == "temporalio/auto-setup" {
				t.Errorf("%s: temporalio/auto-setup is deprecated", name)
			}
		}
		for dep, d := range s.DependsOn {
			target, ok := c.Services[dep]
			if !ok {
				t.Errorf("%s depends on %s, which is no service", name, dep)
				continue
			}
			switch d.Condition {
			case "service_healthy":
				if target.Healthcheck == nil || len(target.Healthcheck.Test) == 0 {
					t.Errorf("%s waits for %s to be healthy, which has no health check", name, dep)
				}
			case "service_completed_successfully", "service_started":
			default:
				t.Errorf("%s depends on %s without a valid condition (%q)", name, dep, d.Condition)
			}
		}
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, ".") || strings.HasPrefix(src, "/") {
				if _, err := os.Stat(filepath.Join("..", src)); err != nil {
					t.Errorf("%s mounts %s: %v", name, src, err)
				}
			} else if _, ok := c.Volumes[src]; !ok {
				t.Errorf("%s mounts the volume %s, which is not declared", name, src)
			}
		}
	}
	for name, want := range map[string]string{"temporal": "temporalio/server", "temporal-schema": "temporalio/admin-tools",
		"temporal-namespace": "temporalio/admin-tools", "temporal-ui": "temporalio/ui", "prometheus": "prom/prometheus",
		"grafana": "grafana/grafana"} {
		if images[name] != want {
			t.Errorf("%s runs %q, want %s", name, images[name], want)
		}
	}
	for _, name := range []string{"postgres", "temporal", "minio", "api", "worker", "prometheus"} {
		if c.Services[name].Healthcheck == nil {
			t.Errorf("%s has no health check", name)
		}
	}
	// Temporal starts on a set-up schema; vts starts once its namespace exists and has the jobs'
	// search attributes (vts temporal setup), which the API and the worker refuse to start without.
	if c.Services["temporal"].DependsOn["temporal-schema"].Condition != "service_completed_successfully" {
		t.Errorf("temporal does not wait for its schema")
	}
	setup := c.Services["temporal-setup"]
	if !slices.Equal(toStrings(setup.Command), []string{"vts", "temporal", "setup"}) ||
		setup.DependsOn["temporal-namespace"].Condition != "service_completed_successfully" ||
		setup.Environment["TEMPORAL_ADDRESS"] != c.Services["worker"].Environment["TEMPORAL_ADDRESS"] {
		t.Errorf("temporal-setup does not run vts temporal setup on the namespace once it exists: %+v", setup)
	}
	for _, name := range []string{"api", "worker"} {
		s := c.Services[name]
		if s.DependsOn["temporal-setup"].Condition != "service_completed_successfully" {
			t.Errorf("%s does not wait for the search attributes (temporal-setup)", name)
		}
		if s.Environment["VTS_METRICS_ADDR"] != "0.0.0.0:9464" {
			t.Errorf("%s: VTS_METRICS_ADDR = %q, which Prometheus does not scrape", name, s.Environment["VTS_METRICS_ADDR"])
		}
	}
	if c.Services["temporal"].Environment["PROMETHEUS_ENDPOINT"] != "0.0.0.0:8000" {
		t.Errorf("Temporal serves no metrics where Prometheus scrapes them")
	}
	for _, script := range []string{"temporal/setup-schema.sh", "temporal/create-namespace.sh"} {
		if fi, err := os.Stat(script); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s is missing or not executable", script)
		}
	}
}

func TestPrometheusScrapesAPIWorkerAndTemporal(t *testing.T) {
	data, err := os.ReadFile("prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
			DNSSDConfigs []struct {
				Names []string `yaml:"names"`
				Type  string   `yaml:"type"`
				Port  int      `yaml:"port"`
			} `yaml:"dns_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, sc := range cfg.ScrapeConfigs {
		for _, s := range sc.StaticConfigs {
			targets = append(targets, s.Targets...)
		}
		for _, d := range sc.DNSSDConfigs {
			for _, n := range d.Names {
				targets = append(targets, n+":"+strconv.Itoa(d.Port))
			}
		}
	}
	for _, want := range []string{"api:9464", "worker:9464", "temporal:8000"} {
		if !slices.Contains(targets, want) {
			t.Errorf("Prometheus does not scrape %s (targets %v)", want, targets)
		}
	}
}

func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("grafana/dashboards/vts.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	exprs := map[string]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			exprs[p.Title] += tg.Expr + "\n"
		}
	}
	for title, metric := range map[string]string{"Jobs": "vts_uploads_total", "Pages/s": "vts_pages_total",
		"Failures": `outcome="failed"`, "Credit flow (per hour)": "vts_credits_total", "Task-queue backlog": "approximate_backlog_count"} {
		if !strings.Contains(exprs[title], metric) {
			t.Errorf("panel %q does not show %s", title, metric)
		}
	}
	// Operators go from the failures to the failed jobs themselves: the Temporal UI's list,
	// filtered by the jobs' search attributes.
	var links struct {
		Links []struct{ URL string } `json:"links"`
	}
	if err := json.Unmarshal(data, &links); err != nil {
		t.Fatal(err)
	}
	failed := "WorkflowType='TranslateJob' AND VtsStatus='failed'"
	linked := false
	for _, l := range links.Links {
		u, err := url.Parse(strings.TrimPrefix(l.URL, "${temporal_ui}"))
		linked = linked || err == nil && strings.HasPrefix(l.URL, "${temporal_ui}/") &&
			u.Path == "/namespaces/default/workflows" && u.Query().Get("query") == failed
	}
	if !linked {
		t.Errorf("the dashboard does not link to the failed jobs in the Temporal UI (%s): %+v", failed, links.Links)
	}
	for _, f := range []string{"grafana/provisioning/datasources/prometheus.yml", "grafana/provisioning/dashboards/vts.yml"} {
		var v map[string]any
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &v); err != nil || v["apiVersion"] == nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// toStrings is a command written as a YAML list.
func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
