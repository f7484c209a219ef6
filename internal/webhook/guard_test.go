package webhook

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dnsServer is a minimal authoritative DNS server on 127.0.0.1 for tests.
// answer returns the addresses for a fully qualified name and query type
// (1 = A, 28 = AAAA) and the number of earlier queries of that type for
// that name; ok=false answers NXDOMAIN.
type dnsServer struct {
	conn   net.PacketConn
	answer func(name string, qtype uint16, n int) (addrs []netip.Addr, ok bool)
	mu     sync.Mutex
	counts map[string]int
}

func startDNS(t *testing.T, answer func(name string, qtype uint16, n int) ([]netip.Addr, bool)) *net.Resolver {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &dnsServer{conn: conn, answer: answer, counts: map[string]int{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve()
	}()
	t.Cleanup(func() { conn.Close(); <-done })
	addr := conn.LocalAddr().String()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", addr)
		},
	}
}

func (s *dnsServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if resp := s.respond(buf[:n]); resp != nil {
			_, _ = s.conn.WriteTo(resp, from)
		}
	}
}

func (s *dnsServer) respond(q []byte) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil
	}
	// Read the question name.
	var labels []string
	i := 12
	for {
		if i >= len(q) {
			return nil
		}
		l := int(q[i])
		i++
		if l == 0 {
			break
		}
		if l > 63 || i+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i:i+l]))
		i += l
	}
	if i+4 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i : i+2])
	qend := i + 4
	name := strings.ToLower(strings.Join(labels, ".")) + "."

	s.mu.Lock()
	key := name + "/" + string(rune('0'+qtype%10))
	count := s.counts[key]
	s.counts[key]++
	s.mu.Unlock()

	addrs, ok := s.answer(name, qtype, count)
	var answers []netip.Addr
	for _, a := range addrs {
		if (qtype == 1 && a.Is4()) || (qtype == 28 && a.Is6()) {
			answers = append(answers, a)
		}
	}
	flags := uint16(0x8000 | 0x0400 | 0x0080) // response, authoritative, recursion available
	flags |= binary.BigEndian.Uint16(q[2:4]) & 0x0100
	if !ok {
		flags |= 3 // NXDOMAIN
		answers = nil
	}
	out := make([]byte, 12, 512)
	copy(out[0:2], q[0:2])
	binary.BigEndian.PutUint16(out[2:4], flags)
	binary.BigEndian.PutUint16(out[4:6], 1)
	binary.BigEndian.PutUint16(out[6:8], uint16(len(answers)))
	out = append(out, q[12:qend]...)
	for _, a := range answers {
		out = append(out, 0xc0, 0x0c) // pointer to the question name
		out = binary.BigEndian.AppendUint16(out, qtype)
		out = binary.BigEndian.AppendUint16(out, 1) // class IN
		out = binary.BigEndian.AppendUint32(out, 0) // TTL
		b := a.AsSlice()
		out = binary.BigEndian.AppendUint16(out, uint16(len(b)))
		out = append(out, b...)
	}
	return out
}

var (
	publicV4    = netip.MustParseAddr("93.184.215.14")
	loopbackV4  = netip.MustParseAddr("127.0.0.1")
	metadataV4  = netip.MustParseAddr("169.254.169.254")
	ec2Metadata = netip.MustParseAddr("fd00:ec2::254")
)

// testZone serves the names the SSRF tests use. "rebind.test." answers a
// public address to the first A query and 127.0.0.1 to every later one.
func testZone(name string, qtype uint16, n int) ([]netip.Addr, bool) {
	switch name {
	case "public.test.":
		return []netip.Addr{publicV4, netip.MustParseAddr("2606:2800:21f:cb07:6820:80da:af6b:8b2c")}, true
	case "loopback.test.":
		return []netip.Addr{loopbackV4}, true
	case "metadata.test.":
		return []netip.Addr{metadataV4}, true
	case "ec2v6.test.":
		return []netip.Addr{ec2Metadata}, true
	case "mixed.test.":
		return []netip.Addr{publicV4, netip.MustParseAddr("10.1.2.3")}, true
	case "mapped.test.":
		return []netip.Addr{netip.MustParseAddr("::ffff:169.254.169.254")}, true
	case "empty.test.":
		return nil, true
	case "rebind.test.":
		if qtype == 1 && n == 0 {
			return []netip.Addr{publicV4}, true
		}
		return []netip.Addr{loopbackV4}, true
	}
	return nil, false
}

func TestCheckURL(t *testing.T) {
	resolver := startDNS(t, testZone)
	prod := Guard{Resolver: resolver}
	cases := []struct {
		url    string
		reason string // "" = allowed
	}{
		// Public destinations.
		{"https://8.8.8.8/hook", ""},
		{"https://1.1.1.1:8443/a/b?c=d", ""},
		{"https://[2606:4700:4700::1111]/hook", ""},
		{"https://[2001:4860:4860::8888]/hook", ""},
		{"https://[64:ff9b::808:808]/", ""}, // NAT64 form of 8.8.8.8
		{"https://[2002:808:808::1]/", ""},  // 6to4 form of 8.8.8.8
		{"https://public.test/hook", ""},
		{"HTTPS://public.test./hook", ""},

		// Scheme and shape.
		{"http://8.8.8.8/hook", ReasonNotHTTPS},
		{"ftp://8.8.8.8/", ReasonNotHTTPS},
		{"javascript:alert(1)", ReasonInvalidURL},
		{"not a url", ReasonInvalidURL},
		{"/relative/path", ReasonInvalidURL},
		{"https:///nohost", ReasonInvalidURL},
		{"https://user:pass@public.test/", ReasonInvalidURL},
		{"https://user@8.8.8.8/", ReasonInvalidURL},
		{"https://8.8.8.8:99999/", ReasonInvalidURL},
		{"https://8.8.8.8:0/", ReasonInvalidURL},
		{"https://exa mple.com/", ReasonInvalidURL},
		{"https://[fe80::1%25eth0]/", ReasonInvalidURL},
		{"https://1.2.3.4.5/", ReasonInvalidURL},
		{"https://134744072/", ReasonInvalidURL}, // 8.8.8.8, but non-canonical

		// IPv4 classes.
		{"https://10.0.0.1/", ReasonPrivateAddress},
		{"https://10.255.255.255/", ReasonPrivateAddress},
		{"https://172.16.0.1/", ReasonPrivateAddress},
		{"https://172.31.255.254/", ReasonPrivateAddress},
		{"https://192.168.1.1/", ReasonPrivateAddress},
		{"https://127.0.0.1/", ReasonPrivateAddress},
		{"https://127.8.9.10:443/", ReasonPrivateAddress},
		{"https://169.254.169.254/latest/meta-data/", ReasonPrivateAddress},
		{"https://169.254.0.1/", ReasonPrivateAddress},
		{"https://100.64.0.1/", ReasonPrivateAddress},
		{"https://100.127.255.254/", ReasonPrivateAddress},
		{"https://224.0.0.1/", ReasonPrivateAddress},
		{"https://239.255.255.250/", ReasonPrivateAddress},
		{"https://0.0.0.0/", ReasonPrivateAddress},
		{"https://0.1.2.3/", ReasonPrivateAddress},
		{"https://255.255.255.255/", ReasonPrivateAddress},
		{"https://240.0.0.1/", ReasonPrivateAddress},
		{"https://198.18.0.1/", ReasonPrivateAddress},
		{"https://198.19.255.255/", ReasonPrivateAddress},
		{"https://192.0.2.10/", ReasonPrivateAddress},
		{"https://198.51.100.7/", ReasonPrivateAddress},
		{"https://203.0.113.9/", ReasonPrivateAddress},
		{"https://192.0.0.8/", ReasonPrivateAddress},

		// Numeric IPv4 forms that C resolvers and browsers accept.
		{"https://2130706433/", ReasonPrivateAddress},   // 127.0.0.1
		{"https://0x7f.1/", ReasonPrivateAddress},       // 127.0.0.1
		{"https://0x7f000001/", ReasonPrivateAddress},   // 127.0.0.1
		{"https://017700000001/", ReasonPrivateAddress}, // 127.0.0.1 in octal
		{"https://0177.0.0.1/", ReasonPrivateAddress},   // 127.0.0.1
		{"https://127.1/", ReasonPrivateAddress},        // 127.0.0.1
		{"https://0xa9fea9fe/", ReasonPrivateAddress},   // 169.254.169.254
		{"https://2852039166/", ReasonPrivateAddress},   // 169.254.169.254
		{"https://0/", ReasonPrivateAddress},            // 0.0.0.0

		// IPv6 classes and IPv4 carried in IPv6.
		{"https://[::1]/", ReasonPrivateAddress},
		{"https://[::]/", ReasonPrivateAddress},
		{"https://[fe80::1]/", ReasonPrivateAddress},
		{"https://[febf:ffff::1]/", ReasonPrivateAddress},
		{"https://[fc00::1]/", ReasonPrivateAddress},
		{"https://[fd12:3456::1]/", ReasonPrivateAddress},
		{"https://[fd00:ec2::254]/", ReasonPrivateAddress},
		{"https://[ff02::1]/", ReasonPrivateAddress},
		{"https://[ff0e::1]/", ReasonPrivateAddress},
		{"https://[fec0::1]/", ReasonPrivateAddress},
		{"https://[100::1]/", ReasonPrivateAddress},
		{"https://[::ffff:127.0.0.1]/", ReasonPrivateAddress},
		{"https://[::ffff:7f00:1]/", ReasonPrivateAddress},
		{"https://[::ffff:169.254.169.254]/", ReasonPrivateAddress},
		{"https://[::ffff:10.0.0.1]/", ReasonPrivateAddress},
		{"https://[::127.0.0.1]/", ReasonPrivateAddress}, // IPv4-compatible
		{"https://[64:ff9b::7f00:1]/", ReasonPrivateAddress},
		{"https://[64:ff9b::169.254.169.254]/", ReasonPrivateAddress},
		{"https://[64:ff9b:1::a00:1]/", ReasonPrivateAddress},
		{"https://[2002:7f00:1::1]/", ReasonPrivateAddress},
		{"https://[2002:a9fe:a9fe::1]/", ReasonPrivateAddress},
		{"https://[2001:db8::1]/", ReasonPrivateAddress},
		{"https://[3fff::1]/", ReasonPrivateAddress},
		{"https://[2001::1]/", ReasonPrivateAddress}, // Teredo
		{"https://[2001:2::1]/", ReasonPrivateAddress},

		// Host names that resolve to non-public addresses.
		{"https://loopback.test/", ReasonPrivateAddress},
		{"https://metadata.test/latest/meta-data/", ReasonPrivateAddress},
		{"https://ec2v6.test/", ReasonPrivateAddress},
		{"https://mixed.test/", ReasonPrivateAddress},
		{"https://mapped.test/", ReasonPrivateAddress},
		{"https://empty.test/", ReasonUnresolvable},
		{"https://nonexistent.test/", ReasonUnresolvable},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			err := prod.CheckURL(ctx, c.url)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("CheckURL = %v, want allowed", err)
				}
				return
			}
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("CheckURL = %v, want *URLError %s", err, c.reason)
			}
			if ue.Reason != c.reason {
				t.Fatalf("CheckURL reason %s (%s), want %s", ue.Reason, ue.Message, c.reason)
			}
			// The message goes to the partner: it must not name the
			// service's resolver (issue 47), here on 127.0.0.1.
			if strings.Contains(ue.Message, "127.0.0.1:") || strings.Contains(ue.Message, " on ") {
				t.Errorf("CheckURL message names the resolver: %s", ue.Message)
			}
		})
	}
}

func TestCheckURLLocalhostDefaultResolver(t *testing.T) {
	err := Guard{}.CheckURL(context.Background(), "https://localhost:8443/hook")
	var ue *URLError
	if !errors.As(err, &ue) || ue.Reason != ReasonPrivateAddress {
		t.Fatalf("localhost: CheckURL = %v, want private_address", err)
	}
}

func TestCheckURLAllowPrivate(t *testing.T) {
	resolver := startDNS(t, testZone)
	dev := Guard{AllowPrivate: true, Resolver: resolver}
	for _, raw := range []string{"http://127.0.0.1:8080/hook", "https://169.254.169.254/", "http://loopback.test/", "http://[::1]:9/"} {
		if err := dev.CheckURL(context.Background(), raw); err != nil {
			t.Errorf("AllowPrivate CheckURL(%q) = %v, want nil", raw, err)
		}
	}
	for _, raw := range []string{"ftp://127.0.0.1/", "http://u:p@127.0.0.1/", "https://nonexistent.test/"} {
		if err := dev.CheckURL(context.Background(), raw); err == nil {
			t.Errorf("AllowPrivate CheckURL(%q) = nil, want an error", raw)
		}
	}
}

func TestParseLooseIPv4(t *testing.T) {
	cases := map[string]string{
		"2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"127.1": "127.0.0.1", "10.1.1": "10.1.0.1", "0x0a.0x1.0x2.0x3": "10.1.2.3",
		"1.2.3.4.": "1.2.3.4", "0xffffffff": "255.255.255.255", "0x": "0.0.0.0",
		"4294967296": "", "256.1.1.1": "", "1.2.3.4.5": "", "08.1.1.1": "", "0x1g": "", "1..1": "",
	}
	for in, want := range cases {
		a, ok := parseLooseIPv4(in)
		switch {
		case want == "" && ok:
			t.Errorf("parseLooseIPv4(%q) = %s, want failure", in, a)
		case want != "" && (!ok || a.String() != want):
			t.Errorf("parseLooseIPv4(%q) = %s, %v, want %s", in, a, ok, want)
		}
	}
}

// A name that resolves to a public address when checked and to 127.0.0.1
// when the delivery connects (DNS rebinding) must not reach the listener.
func TestClientRefusesRebindingAtConnect(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	target := "http://rebind.test:" + port + "/hook"

	resolver := startDNS(t, testZone)
	g := Guard{Resolver: resolver}
	if err := g.CheckURL(context.Background(), strings.Replace(target, "http:", "https:", 1)); err != nil {
		t.Fatalf("first resolution is public, CheckURL = %v", err)
	}
	err := Send(context.Background(), g.Client(2*time.Second), target, testSecret,
		Event{ID: "evt_r", Type: EventDone, Body: []byte(`{}`)}, time.Now())
	var ue *URLError
	if !errors.As(err, &ue) || ue.Reason != ReasonPrivateAddress {
		t.Fatalf("Send after rebinding = %v, want a private_address refusal", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("listener on 127.0.0.1 was reached %d times", n)
	}

	// Control: the same name and listener are reachable when private
	// addresses are allowed, so the refusal above is the guard's doing.
	dev := Guard{AllowPrivate: true, Resolver: resolver}
	if err := Send(context.Background(), dev.Client(2*time.Second), target, testSecret,
		Event{ID: "evt_r", Type: EventDone, Body: []byte(`{}`)}, time.Now()); err != nil {
		t.Fatalf("AllowPrivate Send = %v", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("AllowPrivate delivery did not arrive")
	}
}

func TestClientRefusesLiteralPrivateAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	err := Send(context.Background(), Guard{}.Client(2*time.Second), srv.URL, testSecret,
		Event{ID: "evt_l", Type: EventDone, Body: []byte(`{}`)}, time.Now())
	var ue *URLError
	if !errors.As(err, &ue) || ue.Reason != ReasonPrivateAddress {
		t.Fatalf("Send to %s = %v, want private_address", srv.URL, err)
	}
	if hits.Load() != 0 {
		t.Fatal("listener was reached")
	}
}

func TestClientUsesNoProxy(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	c := Guard{}.Client(time.Second)
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport is %T", c.Transport)
	}
	if tr.Proxy != nil {
		u, _ := url.Parse("https://public.test/")
		if p, _ := tr.Proxy(&http.Request{URL: u}); p != nil {
			t.Fatalf("client would use proxy %s", p)
		}
	}
}
