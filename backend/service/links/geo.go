package links

import (
	"net"

	"github.com/oschwald/maxminddb-golang"
)

// GeoIP names the country of an IP from a MaxMind database (GeoLite2-Country or
// GeoIP2-Country, or any database with country.iso_code). A nil *GeoIP knows no country.
type GeoIP struct{ r *maxminddb.Reader }

// OpenGeoIP opens a MaxMind database file.
func OpenGeoIP(path string) (*GeoIP, error) {
	r, err := maxminddb.Open(path)
	if err != nil {
		return nil, err
	}
	return &GeoIP{r}, nil
}

// Close releases the database.
func (g *GeoIP) Close() error {
	if g == nil {
		return nil
	}
	return g.r.Close()
}

// Country is the ISO 3166-1 alpha-2 code of ip's country, or "" when unknown.
func (g *GeoIP) Country(ip string) string {
	if g == nil {
		return ""
	}
	addr := net.ParseIP(ip)
	if addr == nil {
		return ""
	}
	var rec struct {
		Country struct {
			ISOCode string `maxminddb:"iso_code"`
		} `maxminddb:"country"`
	}
	if err := g.r.Lookup(addr, &rec); err != nil {
		return ""
	}
	return rec.Country.ISOCode
}
