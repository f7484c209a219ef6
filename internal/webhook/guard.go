package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// URLError reasons, reported to partners as details.reason on init.
const (
	ReasonInvalidURL     = "invalid_url"
	ReasonNotHTTPS       = "not_https"
	ReasonPrivateAddress = "private_address"
	ReasonUnresolvable   = "unresolvable"
)

// URLError says why a callback URL or a connection was refused. Reason is
// one of the Reason* constants.
type URLError struct {
	Reason  string
	Message string
}

// Error returns the reason and the message.
func (e *URLError) Error() string { return "callback url " + e.Reason + ": " + e.Message }

// Guard decides which callback URLs and connections are allowed. The zero
// value is the production policy: https only, every resolved and every
// dialled address must be public unicast.
type Guard struct {
	// AllowPrivate, for local testing only, admits http:// URLs and
	// private, loopback and other non-public addresses.
	AllowPrivate bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

func (g Guard) resolver() *net.Resolver {
	if g.Resolver != nil {
		return g.Resolver
	}
	return net.DefaultResolver
}

// CheckURL validates raw as a callback URL: absolute https (http too when
// AllowPrivate), a host, no user info, and a host that is a public address
// or a name all of whose addresses are public. Numeric host forms that
// browsers and C resolvers read as IPv4 (2130706433, 0x7f.1, 017700000001)
// are decoded and checked as such. The error is a *URLError.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &URLError{ReasonInvalidURL, "does not parse: " + err.Error()}
	}
	if !u.IsAbs() || u.Opaque != "" {
		return &URLError{ReasonInvalidURL, "must be an absolute URL"}
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.AllowPrivate {
			return &URLError{ReasonNotHTTPS, "scheme must be https"}
		}
	default:
		return &URLError{ReasonNotHTTPS, fmt.Sprintf("scheme %q is not https", u.Scheme)}
	}
	if u.User != nil {
		return &URLError{ReasonInvalidURL, "user info is not allowed in the URL"}
	}
	host := u.Hostname()
	if host == "" {
		return &URLError{ReasonInvalidURL, "missing host"}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return &URLError{ReasonInvalidURL, fmt.Sprintf("port %q is not in 1..65535", p)}
		}
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return &URLError{ReasonInvalidURL, "IPv6 zone identifiers are not allowed"}
		}
		return g.checkAddr(addr, host)
	}
	if endsInNumber(host) {
		addr, ok := parseLooseIPv4(host)
		if !ok {
			return &URLError{ReasonInvalidURL, fmt.Sprintf("host %q is neither a name nor an IP address", host)}
		}
		if err := g.checkAddr(addr, host); err != nil {
			return err
		}
		return &URLError{ReasonInvalidURL, fmt.Sprintf("host %q is a non-canonical form of %s; write the address as %s", host, addr, addr)}
	}
	if strings.ContainsAny(host, " %/\\") {
		return &URLError{ReasonInvalidURL, fmt.Sprintf("host %q has characters not allowed in a host name", host)}
	}
	addrs, err := g.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil {
		return &URLError{ReasonUnresolvable, fmt.Sprintf("host %q does not resolve (%s)", host, lookupFailure(err))}
	}
	if len(addrs) == 0 {
		return &URLError{ReasonUnresolvable, fmt.Sprintf("host %q has no addresses", host)}
	}
	for _, a := range addrs {
		if err := g.checkAddr(a, host); err != nil {
			return err
		}
	}
	return nil
}

// lookupFailure says why a lookup failed without the error's text, which
// names the service's own DNS resolver (issue 47).
func lookupFailure(err error) string {
	var de *net.DNSError
	switch {
	case errors.As(err, &de) && de.IsNotFound:
		return "no such host"
	case errors.As(err, &de) && de.IsTimeout:
		return "the lookup timed out"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return "the lookup was cut short"
	}
	return "the lookup failed"
}

func (g Guard) checkAddr(addr netip.Addr, host string) error {
	if g.AllowPrivate {
		return nil
	}
	if why := nonPublic(addr); why != "" {
		if host == addr.String() {
			return &URLError{ReasonPrivateAddress, fmt.Sprintf("%s is %s", addr, why)}
		}
		return &URLError{ReasonPrivateAddress, fmt.Sprintf("host %q resolves to %s, %s", host, addr, why)}
	}
	return nil
}

// Client returns an HTTP client for webhook delivery with the given overall
// timeout. It uses no proxy, follows no redirects (a 3xx is returned as the
// response), and checks every address it actually dials, so a name that
// resolved to a public address at CheckURL time and to a private one later
// (DNS rebinding) is refused at connect time with a *URLError.
func (g Guard) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout:  timeout,
		Resolver: g.Resolver,
		Control: func(network, address string, _ syscall.RawConn) error {
			return g.checkDialed(address)
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// checkDialed checks the "ip:port" that the dialer is about to connect to.
func (g Guard) checkDialed(address string) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &URLError{ReasonInvalidURL, fmt.Sprintf("dialled address %q: %v", address, err)}
	}
	addr := ap.Addr().WithZone("")
	if why := nonPublic(addr); why != "" {
		return &URLError{ReasonPrivateAddress, fmt.Sprintf("refused to connect to %s, %s", addr, why)}
	}
	return nil
}

// IsPublic reports whether addr is a public unicast address that callbacks
// may reach.
func IsPublic(addr netip.Addr) bool { return nonPublic(addr) == "" }

type namedPrefix struct {
	prefix netip.Prefix
	why    string
}

func mustPrefixes(pairs ...string) []namedPrefix {
	out := make([]namedPrefix, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, namedPrefix{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// IPv4 ranges that are not public unicast (IANA special-purpose registry).
var blockedV4 = mustPrefixes(
	"0.0.0.0/8", "a \"this network\" address",
	"10.0.0.0/8", "a private address",
	"100.64.0.0/10", "a carrier-grade NAT address",
	"127.0.0.0/8", "a loopback address",
	"169.254.0.0/16", "a link-local address (cloud metadata lives here)",
	"172.16.0.0/12", "a private address",
	"192.0.0.0/24", "an IETF protocol assignment",
	"192.0.2.0/24", "a documentation address",
	"192.88.99.0/24", "a 6to4 relay anycast address",
	"192.168.0.0/16", "a private address",
	"198.18.0.0/15", "a benchmarking address",
	"198.51.100.0/24", "a documentation address",
	"203.0.113.0/24", "a documentation address",
	"224.0.0.0/4", "a multicast address",
	"240.0.0.0/4", "a reserved address",
)

// IPv6 ranges inside 2000::/3 that are not public unicast.
var blockedV6 = mustPrefixes(
	"2001::/32", "a Teredo address",
	"2001:2::/48", "a benchmarking address",
	"2001:10::/28", "an ORCHID address",
	"2001:20::/28", "an ORCHIDv2 address",
	"2001:db8::/32", "a documentation address",
	"3fff::/20", "a documentation address",
	"2001::/23", "an IETF protocol assignment",
)

var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	globalUnicast  = netip.MustParsePrefix("2000::/3")
)

// nonPublic returns why addr may not be reached, or "" if it is public
// unicast. IPv4-mapped, NAT64 and 6to4 forms are judged by the IPv4 address
// they carry.
func nonPublic(addr netip.Addr) string {
	if !addr.IsValid() {
		return "not a valid address"
	}
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return nonPublic(addr.Unmap())
	}
	if addr.Is4() {
		if addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
			return "the broadcast address"
		}
		for _, p := range blockedV4 {
			if p.prefix.Contains(addr) {
				return p.why
			}
		}
		return ""
	}
	b := addr.As16()
	switch {
	case addr.IsUnspecified():
		return "the unspecified address"
	case addr.IsLoopback():
		return "a loopback address"
	case nat64WellKnown.Contains(addr):
		v4 := netip.AddrFrom4([4]byte(b[12:16]))
		if why := nonPublic(v4); why != "" {
			return "a NAT64 form of " + v4.String() + ", " + why
		}
		return ""
	case nat64Local.Contains(addr):
		return "a local-use NAT64 address"
	case sixToFour.Contains(addr):
		v4 := netip.AddrFrom4([4]byte(b[2:6]))
		if why := nonPublic(v4); why != "" {
			return "a 6to4 form of " + v4.String() + ", " + why
		}
		return ""
	case addr.IsMulticast():
		return "a multicast address"
	case addr.IsLinkLocalUnicast():
		return "a link-local address"
	case addr.IsPrivate():
		return "a unique-local address"
	case !globalUnicast.Contains(addr):
		// ::/8 (IPv4-compatible and other reserved), 100::/64 discard,
		// fec0::/10 site-local and every other unassigned block.
		return "not a global unicast address"
	}
	for _, p := range blockedV6 {
		if p.prefix.Contains(addr) {
			return p.why
		}
	}
	return ""
}

// endsInNumber reports whether host's last label (ignoring one trailing
// dot) is all decimal digits or a 0x hex number: the WHATWG URL rule for
// hosts that must be parsed as IPv4. No top-level domain is numeric.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if allDigits(last, 10) {
		return true
	}
	return len(last) >= 2 && (last[:2] == "0x" || last[:2] == "0X") && allDigits(last[2:], 16)
}

func allDigits(s string, base int) bool {
	for _, c := range s {
		if !isDigit(c, base) {
			return false
		}
	}
	return true
}

func isDigit(c rune, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base >= 10
	case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
		return base == 16
	}
	return false
}

// parseLooseIPv4 parses the inet_aton/WHATWG IPv4 forms: one to four parts,
// each decimal, octal (leading 0) or hex (0x); the last part fills the
// remaining bytes.
func parseLooseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
		case len(p) >= 2 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" {
			if base != 16 {
				return netip.Addr{}, false
			}
			p = "0" // "0x" alone is zero in the WHATWG parser
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
