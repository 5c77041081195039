package service

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/vtsproject/vts/internal/config"
)

// authority is a certificate authority made for a test, which signs certificates for 127.0.0.1.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newAuthority(t *testing.T, name string) *authority {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &authority{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue signs a certificate for 127.0.0.1 and returns it with its key, PEM-encoded.
func (a *authority) issue(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "temporal"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"temporal"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Settings that cannot work are refused before any connection, naming the variable at fault.
func TestTemporalTLSSettingsRefused(t *testing.T) {
	ca := newAuthority(t, "ca")
	cert, key := ca.issue(t)
	certPath, keyPath := write(t, "client.pem", cert), write(t, "client-key.pem", key)
	cases := []struct {
		name string
		cfg  config.Config
		want []string
	}{
		{"certificate without key", config.Config{TemporalTLSCert: certPath},
			[]string{"TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_KEY_PATH", "set both or neither"}},
		{"key that is not the certificate's", config.Config{TemporalTLSCert: certPath, TemporalTLSKey: certPath},
			[]string{"loading the client certificate", "TEMPORAL_TLS_CLIENT_KEY_PATH=" + certPath}},
		{"missing CA file", config.Config{TemporalTLSCA: filepath.Join(t.TempDir(), "nope.pem")},
			[]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH", "no such file"}},
		{"CA file that is no certificate", config.Config{TemporalTLSCA: keyPath},
			[]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH=" + keyPath, "holds no PEM certificate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.TemporalAddress, c.cfg.TemporalNamespace = "127.0.0.1:1", "default"
			_, err := DialTemporal(context.Background(), c.cfg, quiet(), client.MetricsNopHandler)
			if err == nil {
				t.Fatal("dialled")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// A server whose certificate another authority signed is refused at start-up, and the message
// says why (the certificate) and which settings to check; nothing of the API key leaks into it.
func TestTemporalTLSWrongAuthorityFailsAtStart(t *testing.T) {
	serverCA, otherCA := newAuthority(t, "server-ca"), newAuthority(t, "other-ca")
	cert, key := serverCA.issue(t)
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	defer srv.Close()

	const apiKey = "vts-test-secret-api-key"
	cfg := config.Config{TemporalAddress: srv.Listener.Addr().String(), TemporalNamespace: "vts-prod",
		TemporalTLSCA: write(t, "ca.pem", otherCA.pem), TemporalAPIKey: apiKey}
	_, err = DialTemporal(context.Background(), cfg, quiet(), client.MetricsNopHandler)
	if err == nil {
		t.Fatal("dialled a server whose certificate the configured CA did not sign")
	}
	msg := err.Error()
	t.Log(msg)
	for _, w := range []string{"connecting to Temporal at " + cfg.TemporalAddress, "namespace vts-prod", "over TLS",
		"certificate", "TEMPORAL_TLS_SERVER_CA_CERT_PATH"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
	if strings.Contains(msg, apiKey) {
		t.Errorf("the error shows the API key: %q", msg)
	}

	// The right authority gets past TLS: what fails then is that this is no Temporal server.
	cfg.TemporalTLSCA = write(t, "ca.pem", serverCA.pem)
	_, err = DialTemporal(context.Background(), cfg, quiet(), client.MetricsNopHandler)
	if err == nil || strings.Contains(err.Error(), "unknown authority") {
		t.Errorf("with the server's CA: %v", err)
	}
}
