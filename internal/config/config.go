// Package config reads the service's one configuration struct from the environment.
package config

import (
	"github.com/vtsproject/vts/internal/job"

	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the service. Each field names its environment variable; the README
// documents them in the same order.
type Config struct {
	Addr              string // VTS_ADDR: where the API listens
	PublicURL         string // VTS_PUBLIC_URL: the externally visible base, for links and redirects
	DatabaseURL       string // DATABASE_URL
	TemporalAddress   string // TEMPORAL_ADDRESS
	TemporalNamespace string // TEMPORAL_NAMESPACE
	// A secured Temporal (Temporal Cloud, a self-hosted cluster with TLS): the names are those of
	// Temporal's own CLI and SDK environment configuration.
	TemporalTLS           bool   // TEMPORAL_TLS: TLS with the system's roots (implied by any setting below)
	TemporalTLSCert       string // TEMPORAL_TLS_CLIENT_CERT_PATH: client certificate (mTLS), PEM
	TemporalTLSKey        string // TEMPORAL_TLS_CLIENT_KEY_PATH: its private key, PEM
	TemporalTLSCA         string // TEMPORAL_TLS_SERVER_CA_CERT_PATH: CA that signed the server's certificate, PEM
	TemporalTLSServerName string // TEMPORAL_TLS_SERVER_NAME: the name the server's certificate carries
	TemporalAPIKey        string // TEMPORAL_API_KEY: API-key authentication (Temporal Cloud); implies TLS
	TemporalTLSNoVerify   bool   // TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: never in production
	TaskQueue             string // VTS_TASK_QUEUE
	BlobURL               string // VTS_BLOB_URL: a gocloud.dev bucket URL
	DataDir               string // VTS_DATA_DIR: local state of `vts dev`

	Engine        string            // VTS_ENGINE: ocr, gemini or test
	EngineByMode  map[string]string // VTS_ENGINE_FAST, VTS_ENGINE_STANDARD, VTS_ENGINE_ADVANCED
	PageParallel  int               // VTS_PAGE_PARALLELISM: pages of one job translated at once
	WorkerPollers int               // VTS_WORKER_ACTIVITIES: activities one worker runs at once
	EngineRPS     float64           // VTS_ENGINE_RPS: task-queue rate limit toward paid engines (0 = none)
	StopGrace     time.Duration     // VTS_WORKER_STOP_GRACE: how long a stopping worker lets running activities finish
	APIStopGrace  time.Duration     // VTS_API_STOP_GRACE: how long a stopping API lets requests in flight finish
	// ReconcileEvery and ReconcileGrace tune the reconciler's schedule (VTS_RECONCILE_EVERY, 10m;
	// VTS_RECONCILE_GRACE, 1h).
	ReconcileEvery, ReconcileGrace time.Duration

	// The ocr engine and its text translation.
	TesseractPath      string        // VTS_TESSERACT: the tesseract binary
	TessdataDir        string        // VTS_TESSDATA_DIR
	FontPath           string        // VTS_FONT: lettering font for non-CJK targets
	CJKFontPath        string        // VTS_CJK_FONT
	OCRConcurrency     int           // VTS_OCR_CONCURRENCY: tesseract processes at once (default: CPUs)
	Translator         string        // VTS_TRANSLATOR: apertium (default), openai or deepl
	AdvancedTranslator string        // VTS_ADVANCED_TRANSLATOR: for mode advanced (default: openai when VTS_LLM_URL is set)
	LLMBaseURL         string        // VTS_LLM_URL: an OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, OpenAI)
	LLMModel           string        // VTS_LLM_MODEL
	LLMAPIKey          string        // VTS_LLM_API_KEY
	LLMVision          bool          // VTS_LLM_VISION: the model reads images; bubble crops are sent along
	ComicFontPath      string        // VTS_COMIC_FONT: lettering font for bubbles
	Lettering          job.Lettering // VTS_LETTERING: mixed (default) or upper, for uploads that name none
	DeepLAPIKey        string        // DEEPL_API_KEY
	DeepLBaseURL       string        // DEEPL_API_URL

	// Gemini image models.
	GeminiAPIKey  string            // GEMINI_API_KEY
	GeminiBaseURL string            // GEMINI_BASE_URL
	GeminiModels  map[string]string // GEMINI_MODEL_FAST, GEMINI_MODEL_STANDARD, GEMINI_MODEL_ADVANCED

	// Test engine knobs, for tests and benchmarks only.
	TestEngineLatency time.Duration // VTS_TEST_ENGINE_LATENCY

	// Billing.
	StripeSecretKey     string // STRIPE_SECRET_KEY
	StripeWebhookSecret string // STRIPE_WEBHOOK_SECRET
	StripeAPIURL        string // STRIPE_API_URL: stripe-mock or a proxy
	StripePrices        string // VTS_STRIPE_PRICES: price_xxx=plan:pro,price_yyy=credits:100
	CheckoutSuccessURL  string // VTS_CHECKOUT_SUCCESS_URL
	CheckoutCancelURL   string // VTS_CHECKOUT_CANCEL_URL

	// Identity.
	OIDCIssuer   string // VTS_OIDC_ISSUER: an OIDC issuer whose JWKS verifies ID tokens
	OIDCAudience string // VTS_OIDC_AUDIENCE
	OIDCJWKSURL  string // VTS_OIDC_JWKS_URL: overrides discovery (Firebase publishes its keys here)

	// Abuse limits: token buckets per client address and per user; a rate of 0 turns one off.
	RateAddressRPS   float64 // VTS_RATE_ADDRESS_RPS (default 50)
	RateAddressBurst int     // VTS_RATE_ADDRESS_BURST (default 500)
	RateUserRPS      float64 // VTS_RATE_USER_RPS (default 20)
	RateUserBurst    int     // VTS_RATE_USER_BURST (default 200)
	StreamsPerAddr   int     // VTS_STREAMS_PER_ADDRESS: open progress streams per client address (default 64)
	TrustedProxies   string  // VTS_TRUSTED_PROXIES: CIDRs whose X-Forwarded-For names the client
	RateBackend      string  // VTS_RATE_BACKEND: postgres (default: shared by every API replica) or memory (per process)

	LogLevel string // VTS_LOG_LEVEL: debug, info, warn, error

	// MetricsAddr is where /metrics is served (VTS_METRICS_ADDR); empty means the default of the
	// role (MetricsListen), "off" serves none.
	MetricsAddr string
}

// MetricsListen is the address /metrics listens on for a role ("api" or "worker"), "" for none:
// VTS_METRICS_ADDR, else the port beside the API's (VTS_ADDR's port + 1 for the API and `vts dev`,
// + 2 for a worker, so that both run on one machine without configuration).
func (c Config) MetricsListen(role string) string {
	switch c.MetricsAddr {
	case "off":
		return ""
	case "":
	default:
		return c.MetricsAddr
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return ""
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return ""
	}
	next := 1
	if role == "worker" {
		next = 2
	}
	return net.JoinHostPort(host, strconv.Itoa(n+next))
}

// FromEnv reads the configuration, filling defaults that run on one machine with no accounts.
func FromEnv() (Config, error) {
	dataDir := env("VTS_DATA_DIR", "data")
	absData, err := filepath.Abs(dataDir)
	if err != nil {
		return Config{}, fmt.Errorf("resolving VTS_DATA_DIR: %w", err)
	}
	c := Config{
		Addr:               env("VTS_ADDR", "127.0.0.1:8080"),
		MetricsAddr:        env("VTS_METRICS_ADDR", ""),
		PublicURL:          os.Getenv("VTS_PUBLIC_URL"),
		DatabaseURL:        os.Getenv("DATABASE_URL"),
		TemporalAddress:    env("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		TemporalNamespace:  env("TEMPORAL_NAMESPACE", "default"),
		TemporalTLSCert:    os.Getenv("TEMPORAL_TLS_CLIENT_CERT_PATH"),
		TemporalTLSKey:     os.Getenv("TEMPORAL_TLS_CLIENT_KEY_PATH"),
		TemporalTLSCA:      os.Getenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH"),
		TemporalAPIKey:     os.Getenv("TEMPORAL_API_KEY"),
		TaskQueue:          env("VTS_TASK_QUEUE", "vts-translate"),
		BlobURL:            env("VTS_BLOB_URL", "file://"+filepath.ToSlash(filepath.Join(absData, "blobs"))+"?create_dir=true"),
		DataDir:            absData,
		Engine:             env("VTS_ENGINE", "ocr"),
		EngineByMode:       map[string]string{},
		TesseractPath:      os.Getenv("VTS_TESSERACT"),
		TessdataDir:        os.Getenv("VTS_TESSDATA_DIR"),
		FontPath:           os.Getenv("VTS_FONT"),
		CJKFontPath:        os.Getenv("VTS_CJK_FONT"),
		Translator:         env("VTS_TRANSLATOR", "apertium"),
		AdvancedTranslator: os.Getenv("VTS_ADVANCED_TRANSLATOR"),
		LLMBaseURL:         os.Getenv("VTS_LLM_URL"),
		LLMModel:           os.Getenv("VTS_LLM_MODEL"),
		LLMAPIKey:          os.Getenv("VTS_LLM_API_KEY"),
		LLMVision:          os.Getenv("VTS_LLM_VISION") == "1" || os.Getenv("VTS_LLM_VISION") == "true",
		ComicFontPath:      os.Getenv("VTS_COMIC_FONT"),
		DeepLAPIKey:        os.Getenv("DEEPL_API_KEY"),
		DeepLBaseURL:       os.Getenv("DEEPL_API_URL"),
		GeminiAPIKey:       os.Getenv("GEMINI_API_KEY"),
		GeminiBaseURL:      os.Getenv("GEMINI_BASE_URL"),
		GeminiModels:       map[string]string{},

		StripeSecretKey:     os.Getenv("STRIPE_SECRET_KEY"),
		StripeWebhookSecret: os.Getenv("STRIPE_WEBHOOK_SECRET"),
		StripeAPIURL:        os.Getenv("STRIPE_API_URL"),
		StripePrices:        os.Getenv("VTS_STRIPE_PRICES"),
		CheckoutSuccessURL:  os.Getenv("VTS_CHECKOUT_SUCCESS_URL"),
		CheckoutCancelURL:   os.Getenv("VTS_CHECKOUT_CANCEL_URL"),

		OIDCIssuer:   os.Getenv("VTS_OIDC_ISSUER"),
		OIDCAudience: os.Getenv("VTS_OIDC_AUDIENCE"),
		OIDCJWKSURL:  os.Getenv("VTS_OIDC_JWKS_URL"),

		LogLevel: env("VTS_LOG_LEVEL", "info"),
	}
	for _, mode := range job.Modes {
		m := string(mode)
		if v := os.Getenv("VTS_ENGINE_" + strings.ToUpper(m)); v != "" {
			c.EngineByMode[m] = v
		}
		if v := os.Getenv("GEMINI_MODEL_" + strings.ToUpper(m)); v != "" {
			c.GeminiModels[m] = v
		}
	}
	if c.Lettering, err = job.ParseLettering(env("VTS_LETTERING", string(job.DefaultLettering))); err != nil {
		return Config{}, fmt.Errorf("VTS_LETTERING must be mixed or upper, got %q", os.Getenv("VTS_LETTERING"))
	}
	if c.PageParallel, err = envInt("VTS_PAGE_PARALLELISM", 4); err != nil {
		return Config{}, err
	}
	if c.ReconcileEvery, err = time.ParseDuration(env("VTS_RECONCILE_EVERY", "10m")); err != nil || c.ReconcileEvery <= 0 {
		return Config{}, fmt.Errorf("VTS_RECONCILE_EVERY: a positive duration, like 10m: %v", err)
	}
	if c.ReconcileGrace, err = time.ParseDuration(env("VTS_RECONCILE_GRACE", "1h")); err != nil || c.ReconcileGrace < 0 {
		return Config{}, fmt.Errorf("VTS_RECONCILE_GRACE: a duration, like 1h: %v", err)
	}
	if c.WorkerPollers, err = envInt("VTS_WORKER_ACTIVITIES", 8); err != nil {
		return Config{}, err
	}
	if v := os.Getenv("VTS_OCR_CONCURRENCY"); v != "" {
		if c.OCRConcurrency, err = envInt("VTS_OCR_CONCURRENCY", 0); err != nil {
			return Config{}, err
		}
	}
	if c.AdvancedTranslator == "" {
		c.AdvancedTranslator = c.Translator
		if c.LLMBaseURL != "" {
			c.AdvancedTranslator = "openai"
		}
	}
	if v := os.Getenv("VTS_ENGINE_RPS"); v != "" {
		if c.EngineRPS, err = strconv.ParseFloat(v, 64); err != nil {
			return Config{}, fmt.Errorf("VTS_ENGINE_RPS: %w", err)
		}
	}
	c.StopGrace = 2 * time.Minute
	if v := os.Getenv("VTS_WORKER_STOP_GRACE"); v != "" {
		if c.StopGrace, err = time.ParseDuration(v); err != nil || c.StopGrace < 0 {
			return Config{}, fmt.Errorf("VTS_WORKER_STOP_GRACE must be a duration such as 2m, got %q", v)
		}
	}
	c.APIStopGrace = 30 * time.Second
	if v := os.Getenv("VTS_API_STOP_GRACE"); v != "" {
		if c.APIStopGrace, err = time.ParseDuration(v); err != nil || c.APIStopGrace < 0 {
			return Config{}, fmt.Errorf("VTS_API_STOP_GRACE must be a duration such as 30s, got %q", v)
		}
	}
	if v := os.Getenv("VTS_TEST_ENGINE_LATENCY"); v != "" {
		if c.TestEngineLatency, err = time.ParseDuration(v); err != nil {
			return Config{}, fmt.Errorf("VTS_TEST_ENGINE_LATENCY: %w", err)
		}
	}
	if c.RateAddressRPS, err = envRate("VTS_RATE_ADDRESS_RPS", 50); err != nil {
		return Config{}, err
	}
	if c.RateAddressBurst, err = envInt("VTS_RATE_ADDRESS_BURST", 500); err != nil {
		return Config{}, err
	}
	if c.RateUserRPS, err = envRate("VTS_RATE_USER_RPS", 20); err != nil {
		return Config{}, err
	}
	if c.RateUserBurst, err = envInt("VTS_RATE_USER_BURST", 200); err != nil {
		return Config{}, err
	}
	if c.StreamsPerAddr, err = envInt("VTS_STREAMS_PER_ADDRESS", 64); err != nil {
		return Config{}, err
	}
	c.TrustedProxies = os.Getenv("VTS_TRUSTED_PROXIES")
	switch c.RateBackend = env("VTS_RATE_BACKEND", "postgres"); c.RateBackend {
	case "postgres", "memory":
	default:
		return Config{}, fmt.Errorf("VTS_RATE_BACKEND must be postgres or memory, got %q", c.RateBackend)
	}
	c.TemporalTLSServerName = os.Getenv("TEMPORAL_TLS_SERVER_NAME")
	if c.TemporalTLS, err = envBool("TEMPORAL_TLS"); err != nil {
		return Config{}, err
	}
	if c.TemporalTLSNoVerify, err = envBool("TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"); err != nil {
		return Config{}, err
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.Addr
	}
	return c, nil
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func envInt(key string, def int) (int, error) {
	v := os.Getenv(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive integer, got %q", key, v)
	}
	return n, nil
}

// envBool reads true/false, 1/0 (empty is false).
func envBool(key string) (bool, error) {
	v := os.Getenv(key)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false, got %q", key, v)
	}
	return b, nil
}

// envRate reads a non-negative rate; 0 turns the limit off.
func envRate(key string, def float64) (float64, error) {
	v := os.Getenv(key)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f != f {
		return 0, fmt.Errorf("%s must be a non-negative number, got %q", key, v)
	}
	return f, nil
}

// EngineFor is the engine name that serves mode.
func (c Config) EngineFor(mode string) string {
	if e, ok := c.EngineByMode[mode]; ok {
		return e
	}
	return c.Engine
}
