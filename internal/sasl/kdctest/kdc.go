// Package kdctest runs a real MIT Kerberos KDC (Debian's krb5-kdc) for
// tests: its own realm, database and keytabs in a temporary directory and
// its own port on 127.0.0.1, stopped when the test ends.
package kdctest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Realm is the realm every test KDC serves.
const Realm = "KARST.TEST"

// KDC is one running krb5kdc.
type KDC struct {
	Dir  string
	Addr string
	// Krb5Conf is a krb5.conf naming this KDC as the realm's and
	// the realm as the default one.
	Krb5Conf string
	env      []string
}

// Tools are the MIT programs a KDC needs; CI installs them with
// krb5-kdc, krb5-admin-server and krb5-user.
var Tools = []string{"krb5kdc", "kdb5_util", "kadmin.local"}

func lookTool(t testing.TB, name string) string {
	t.Helper()
	for _, dir := range []string{"", "/usr/sbin/", "/usr/bin/"} {
		if path, err := exec.LookPath(dir + name); err == nil {
			return path
		}
	}
	t.Fatalf("%s not found: install krb5-kdc krb5-admin-server krb5-user (as .ci/run does)", name)
	return ""
}

// Start creates a realm and runs its KDC until the test ends.
func Start(t testing.TB) *KDC {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	k := &KDC{Dir: dir, Addr: fmt.Sprintf("127.0.0.1:%d", port), Krb5Conf: filepath.Join(dir, "krb5.conf")}
	write(t, k.Krb5Conf, fmt.Sprintf(`[libdefaults]
 default_realm = %[1]s
 dns_lookup_realm = false
 dns_lookup_kdc = false
 rdns = false
 dns_canonicalize_hostname = false
 udp_preference_limit = 1
 ticket_lifetime = 1h
 forwardable = false
 default_ccache_name = FILE:%[3]s/ccache
[realms]
 %[1]s = {
  kdc = %[2]s
 }
`, Realm, k.Addr, dir))
	kdcConf := filepath.Join(dir, "kdc.conf")
	write(t, kdcConf, fmt.Sprintf(`[kdcdefaults]
 kdc_listen = %[2]s
 kdc_tcp_listen = %[2]s
[realms]
 %[1]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  max_life = 1h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
`, Realm, k.Addr, dir))
	write(t, filepath.Join(dir, "kadm5.acl"), "")
	k.env = append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf, "KRB5_KDC_PROFILE="+kdcConf)
	k.run(t, lookTool(t, "kdb5_util"), "create", "-s", "-r", Realm, "-P", "karst-test-master")

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, lookTool(t, "krb5kdc"), "-n", "-r", Realm)
	cmd.Env = k.env
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", k.Addr, time.Second)
		if err == nil {
			c.Close()
			return k
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "kdc.log"))
			t.Fatalf("krb5kdc exited: %v\n%s", err, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("krb5kdc did not listen on %s within 30s", k.Addr)
		}
	}
}

// AddPrincipal creates principal with a random key and writes its keys to
// a keytab of its own, whose path is returned.
func (k *KDC) AddPrincipal(t testing.TB, principal string) string {
	t.Helper()
	kadmin := lookTool(t, "kadmin.local")
	keytab := filepath.Join(k.Dir, strings.NewReplacer("/", "_", "@", "_").Replace(principal)+".keytab")
	k.run(t, kadmin, "-r", Realm, "-q", "addprinc -randkey "+principal)
	k.run(t, kadmin, "-r", Realm, "-q", "ktadd -k "+keytab+" "+principal)
	return keytab
}

// Env is the environment that points MIT tools and clients at this KDC.
func (k *KDC) Env() []string { return k.env }

func (k *KDC) run(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = k.env
	cmd.Dir = k.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freePort is a port free on 127.0.0.1 for both TCP and UDP, which
// krb5kdc binds itself.
func freePort(t testing.TB) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
		l.Close()
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no port free for both TCP and UDP")
	return 0
}
