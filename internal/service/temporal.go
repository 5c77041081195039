package service

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	tlog "go.temporal.io/sdk/log"

	"github.com/vtsproject/vts/internal/config"
)

// TemporalOptions builds the Temporal client's options from the configuration: address,
// namespace, and for a secured cluster TLS (with a client certificate for mTLS, a private CA, a
// server name) and API-key credentials. Every file is read here, so that a wrong path or a
// certificate without its key fails at start-up naming the variable.
func TemporalOptions(cfg config.Config) (client.Options, error) {
	opts := client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace}
	if (cfg.TemporalTLSCert == "") != (cfg.TemporalTLSKey == "") {
		return opts, errors.New("Temporal TLS: TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together; set both or neither")
	}
	useTLS := cfg.TemporalTLS || cfg.TemporalTLSCert != "" || cfg.TemporalTLSCA != "" || cfg.TemporalTLSServerName != "" ||
		cfg.TemporalAPIKey != "" || cfg.TemporalTLSNoVerify
	if !useTLS {
		return opts, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.TemporalTLSServerName,
		InsecureSkipVerify: cfg.TemporalTLSNoVerify} //nolint:gosec // an explicit operator choice, warned about at start-up
	if cfg.TemporalTLSCert != "" {
		pair, err := tls.LoadX509KeyPair(cfg.TemporalTLSCert, cfg.TemporalTLSKey)
		if err != nil {
			return opts, fmt.Errorf("Temporal TLS: loading the client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH=%s, TEMPORAL_TLS_CLIENT_KEY_PATH=%s): %w",
				cfg.TemporalTLSCert, cfg.TemporalTLSKey, err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	if cfg.TemporalTLSCA != "" {
		pem, err := os.ReadFile(cfg.TemporalTLSCA)
		if err != nil {
			return opts, fmt.Errorf("Temporal TLS: reading the CA (TEMPORAL_TLS_SERVER_CA_CERT_PATH): %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return opts, fmt.Errorf("Temporal TLS: TEMPORAL_TLS_SERVER_CA_CERT_PATH=%s holds no PEM certificate", cfg.TemporalTLSCA)
		}
		tc.RootCAs = pool
	}
	opts.ConnectionOptions.TLS = tc
	if cfg.TemporalAPIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.TemporalAPIKey)
	}
	return opts, nil
}

// DialTemporal connects to Temporal and checks that it answers, so that a misconfigured address,
// TLS setup or credential stops the process at start-up with the reason.
func DialTemporal(ctx context.Context, cfg config.Config, log *slog.Logger, metrics client.MetricsHandler,
	interceptors ...interceptor.ClientInterceptor) (client.Client, error) {
	opts, err := TemporalOptions(cfg)
	if err != nil {
		return nil, err
	}
	opts.Logger = tlog.NewStructuredLogger(log.With("component", "temporal"))
	opts.MetricsHandler = metrics
	opts.Interceptors = interceptors
	security := "without TLS"
	if tc := opts.ConnectionOptions.TLS; tc != nil {
		security = "over TLS"
		if len(tc.Certificates) > 0 {
			security += " with a client certificate"
		}
		if tc.InsecureSkipVerify {
			log.Warn("TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is set: the Temporal server's certificate is not verified")
		}
	}
	if opts.Credentials != nil {
		security += " and an API key"
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		hint := ""
		if opts.ConnectionOptions.TLS != nil {
			hint = " (check TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME and the client certificate against the server's)"
		}
		return nil, fmt.Errorf("connecting to Temporal at %s (namespace %s) %s: %w%s", cfg.TemporalAddress, cfg.TemporalNamespace,
			security, err, hint)
	}
	log.Info("connected to Temporal", "address", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace, "security", security)
	return c, nil
}
