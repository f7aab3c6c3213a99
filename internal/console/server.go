package console

import (
	"cmp"
	"context"
	"crypto/tls"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/metrics"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Options say where the console listens and which broker it reads.
type Options struct {
	// Addr is karst.console.listener, host:port.
	Addr string
	// ServerTLS, when set, makes the console serve HTTPS only, with the
	// certificate of karst.console.ssl.*.
	ServerTLS *tls.Config
	// Bootstrap is the broker's own Kafka listener; every connection the
	// console's clients make goes to it, whatever the broker advertises,
	// so an advertised name this host cannot resolve does not matter.
	Bootstrap string
	// Metrics are sampled for the throughput and latency charts; nil
	// leaves them empty.
	Metrics *metrics.Metrics
	// SampleEvery is the charts' resolution (0: every 5 s).
	SampleEvery time.Duration
	Logger      *slog.Logger
	// Mechanisms, when set, are the SASL mechanisms of the listener at
	// Bootstrap a user may log in with: every page then needs a login,
	// and the console asks the broker for it as the user's principal,
	// so the broker's ACLs decide what the user sees.
	Mechanisms []string
	// SessionTimeout ends a login idle that long (0: 30 minutes).
	SessionTimeout time.Duration
	// TLS, when set, is the client side of the TLS handshake with the
	// listener at Bootstrap (an SSL or SASL_SSL listener).
	TLS *tls.Config
	// Principal is who the console's own client is to the broker when
	// nobody logs in (User:ANONYMOUS, or the principal of the client
	// certificate it presents), shown on every page.
	Principal string
	// OAuthBearer names the principal of a token the broker accepted and
	// says when the token expires (zero: never), as the listener's own
	// OAUTHBEARER validation does; it must be set when Mechanisms offer
	// OAUTHBEARER.
	OAuthBearer func(token string) (principal string, expires time.Time, err error)
}

// Server is a running console.
type Server struct {
	opts Options
	http *http.Server
	ln   net.Listener
	// shared is the console's own way to the broker, when nobody logs
	// in; sessions are the logged-in users' otherwise.
	shared   *kafka
	sessions *sessions
	pages    map[string]*template.Template
	samples  *sampler
	started  time.Time
	stop     context.CancelFunc
}

// Start binds opts.Addr and serves in the background.
func Start(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.SampleEvery <= 0 {
		opts.SampleEvery = 5 * time.Second
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, pages: pages, samples: newSampler(opts.Metrics, opts.SampleEvery, 10*time.Minute), started: time.Now()}
	if slices.Contains(opts.Mechanisms, oauthBearer) && opts.OAuthBearer == nil {
		return nil, fmt.Errorf("an OAUTHBEARER login needs the listener's token validation")
	}
	if len(opts.Mechanisms) > 0 {
		s.sessions = newSessions(cmp.Or(opts.SessionTimeout, 30*time.Minute))
	} else if s.shared, err = s.newKafka(opts.Principal); err != nil {
		return nil, err
	}
	if s.ln, err = net.Listen("tcp", opts.Addr); err != nil {
		if s.shared != nil {
			s.shared.client.Close()
		}
		return nil, err
	}
	if opts.ServerTLS != nil {
		s.ln = tls.NewListener(s.ln, opts.ServerTLS)
	}
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.samples.run(ctx)
	if s.sessions != nil {
		go s.sessions.expire(ctx)
	}
	// Failed TLS handshakes (a plain-HTTP visitor, a browser refusing
	// the certificate) are the visitor's business: debug, not stderr.
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(opts.Logger.Handler(), slog.LevelDebug)}
	go func() {
		if err := s.http.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			opts.Logger.Warn("web console stopped serving", "err", err)
		}
	}()
	return s, nil
}

// clientOpts make a client that reaches the broker at Bootstrap only,
// over TLS when the listener is an SSL one.
func (s *Server) clientOpts(more ...kgo.Opt) []kgo.Opt {
	bootstrap, tlsConfig := s.opts.Bootstrap, s.opts.TLS
	d := &net.Dialer{}
	dial := d.DialContext
	if tlsConfig != nil {
		// kgo takes a Dialer or a TLS configuration, not both; the
		// Dialer is what keeps every connection on Bootstrap.
		dial = (&tls.Dialer{NetDialer: d, Config: tlsConfig}).DialContext
	}
	return append([]kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID("karst-console"),
		// kgo answers a Metadata request from its cache while the cache
		// is younger than this (5 s by default): a page would show a
		// topic, or an ACL's refusal, seconds after the broker changed.
		kgo.MetadataMinAge(250 * time.Millisecond),
		kgo.Dialer(func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dial(ctx, network, bootstrap)
		}),
	}, more...)
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the console's address as a browser opens it.
func (s *Server) URL() string {
	scheme := "http"
	if s.opts.ServerTLS != nil {
		scheme = "https"
	}
	return scheme + "://" + s.Addr().String() + "/"
}

// Close stops serving and closes the console's clients.
func (s *Server) Close(ctx context.Context) error {
	s.stop()
	err := s.http.Shutdown(ctx)
	if s.shared != nil {
		s.shared.client.Close()
	}
	return err
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.serve("overview", "overview", s.overview))
	mux.HandleFunc("GET /topics", s.serve("topics", "topics", s.topics))
	mux.HandleFunc("GET /topics/{topic}", s.serve("topic", "topics", s.topic))
	mux.HandleFunc("GET /topics/{topic}/messages", s.serve("messages", "topics", s.messages))
	mux.HandleFunc("GET /groups", s.serve("groups", "groups", s.groups))
	mux.HandleFunc("GET /groups/{group}", s.serve("group", "groups", s.group))
	if s.sessions != nil {
		mux.HandleFunc("GET /login", s.loginPage)
		mux.HandleFunc("POST /login", s.login)
		mux.HandleFunc("POST /logout", s.logout)
	}
	return mux
}

// reader fills a page from the broker, asking through k; ctx bounds its
// requests.
type reader func(ctx context.Context, k *kafka, r *http.Request, p *page) error

// serve renders the template name with what read put in the page, or
// with the error it returned, timing the reading.
func (s *Server) serve(name, nav string, read reader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		k, ok := s.principal(w, r)
		if !ok {
			return
		}
		p := page{Nav: nav, Reload: reloadSeconds(r), Principal: k.principal, LoggedIn: s.sessions != nil}
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		if err := read(ctx, k, r, &p); err != nil {
			s.failed(w, r, name, p, err)
			return
		}
		p.Took = time.Since(start)
		s.render(w, r, name, p)
	}
}

// requestTimeout bounds the Kafka requests one page makes.
const requestTimeout = 10 * time.Second

// page is what every template gets: the page's own data and the chrome.
type page struct {
	Title  string
	Nav    string
	Err    string
	Took   time.Duration
	Data   any
	Reload int // seconds; 0: no automatic reload
	// Status is the HTTP status of a page with Err (0: 502, the broker
	// did not answer as asked).
	Status int
	// Principal is who the pages were asked as: the logged-in user's,
	// or the console's own principal.
	Principal string
	// LoggedIn says Principal logged in (and may log out).
	LoggedIn bool
}

// badQuery is an error in what the page's address asked for, as opposed
// to one in reading the broker.
type badQuery struct{ error }

func intParam(r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(r.FormValue(name)), 10, 64)
	return n, err == nil
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	t, ok := s.pages[name]
	if !ok {
		http.Error(w, "no page "+name, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if p.Err != "" {
		w.WriteHeader(cmp.Or(p.Status, http.StatusBadGateway))
	}
	if err := t.ExecuteTemplate(w, "layout", p); err != nil {
		s.opts.Logger.Warn("web console page", "page", name, "path", r.URL.Path, "err", err)
	}
}

// failed renders a page whose data could not be read, saying why.
func (s *Server) failed(w http.ResponseWriter, r *http.Request, name string, p page, err error) {
	p.Err = fmt.Sprint(err)
	switch {
	case errors.As(err, new(badQuery)):
		p.Status = http.StatusBadRequest
	case errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.GroupIDNotFound):
		p.Status = http.StatusNotFound
	case errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.GroupAuthorizationFailed) ||
		errors.Is(err, kerr.ClusterAuthorizationFailed):
		// The broker refused the logged-in principal: the page says so
		// in the broker's words.
		p.Status = http.StatusForbidden
	}
	s.render(w, r, name, p)
}

func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		if n == "templates/layout.html" {
			continue
		}
		t, err := template.New("").Funcs(templateFuncs).ParseFS(templateFiles, "templates/layout.html", n)
		if err != nil {
			return nil, err
		}
		pages[n[len("templates/"):len(n)-len(".html")]] = t
	}
	return pages, nil
}
