package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"

	"github.com/switchboard-dev/switchboard/backend/service/links"
)

// openGeoIP opens the operator's MaxMind database, if any.
func openGeoIP(path string) (*links.GeoIP, error) {
	if path == "" {
		return nil, nil
	}
	g, err := links.OpenGeoIP(path)
	if err != nil {
		return nil, fmt.Errorf("SWITCHBOARD_GEOIP_FILE: %w", err)
	}
	return g, nil
}

// visitorSalt derives the click visitor-hash salt from the secrets key, so every replica
// and restart hashes a visitor alike; without a key each process draws its own.
func visitorSalt(secretsKey string) []byte {
	if secretsKey == "" {
		return nil
	}
	m := hmac.New(sha256.New, []byte(secretsKey))
	m.Write([]byte("switchboard link visitor salt"))
	return m.Sum(nil)
}
