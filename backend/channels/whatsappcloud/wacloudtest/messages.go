package wacloudtest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// messageTypes are the types the messages endpoint sends.
var messageTypes = map[string]bool{"text": true, "image": true, "video": true, "audio": true, "document": true,
	"sticker": true, "location": true, "contacts": true, "reaction": true, "template": true, "interactive": true}

// postMessage validates a send (or a read receipt) as the API does and answers like it.
func (s *Server) postMessage(w http.ResponseWriter, body map[string]any) {
	if body == nil {
		writeFailure(w, invalid("The parameter messaging_product is required.", "the body must be a JSON object"))
		return
	}
	if mp, _ := body["messaging_product"].(string); mp != "whatsapp" {
		if _, ok := body["messaging_product"]; !ok {
			writeFailure(w, invalid("The parameter messaging_product is required.", ""))
		} else {
			writeFailure(w, invalid("Invalid parameter", "messaging_product must be whatsapp"))
		}
		return
	}
	if st, ok := body["status"]; ok {
		if st != "read" {
			writeFailure(w, invalid("Invalid parameter", "status must be read"))
			return
		}
		if id, _ := body["message_id"].(string); !strings.HasPrefix(id, "wamid.") {
			writeFailure(w, invalid("Invalid parameter", "message_id must be the id of a received message"))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"success": true})
		return
	}
	to, _ := body["to"].(string)
	if to == "" {
		writeFailure(w, invalid("The parameter to is required.", ""))
		return
	}
	if rt, ok := body["recipient_type"]; ok && rt != "individual" {
		writeFailure(w, invalid("Invalid parameter", "recipient_type must be individual"))
		return
	}
	typ := "text" // the API's default
	if t, ok := body["type"].(string); ok {
		typ = t
	}
	if !messageTypes[typ] {
		writeFailure(w, invalid("Invalid parameter", "Param type must be one of {AUDIO, CONTACTS, DOCUMENT, IMAGE, INTERACTIVE, LOCATION, REACTION, STICKER, TEMPLATE, TEXT, VIDEO}"))
		return
	}
	if ctx, ok := body["context"]; ok {
		c, _ := ctx.(map[string]any)
		if id, _ := c["message_id"].(string); id == "" {
			writeFailure(w, invalid("Invalid parameter", "context['message_id'] is required"))
			return
		}
	}
	obj, _ := body[typ].(map[string]any)
	if typ == "contacts" {
		obj = map[string]any{}
	} else if obj == nil {
		writeFailure(w, invalid(fmt.Sprintf("The parameter %s is required.", typ), ""))
		return
	}
	if msg := checkObject(typ, obj, body); msg != "" {
		writeFailure(w, invalid("Invalid parameter", msg))
		return
	}
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, to)
	msg := map[string]any{"id": s.NewWAMID()}
	if typ == "template" {
		msg["message_status"] = "accepted"
	}
	writeJSON(w, http.StatusOK, map[string]any{"messaging_product": "whatsapp",
		"contacts": []any{map[string]any{"input": to, "wa_id": digits}}, "messages": []any{msg}})
}

func invalid(message, details string) Failure {
	return Failure{Code: 100, Message: "(#100) " + message, Details: details}
}

// checkObject checks the object a type names; "" when it is valid.
func checkObject(typ string, o, body map[string]any) string {
	str := func(k string) string { v, _ := o[k].(string); return v }
	switch typ {
	case "text":
		if str("body") == "" {
			return "text['body'] is required"
		}
		if v, ok := o["preview_url"]; ok {
			if _, isBool := v.(bool); !isBool {
				return "text['preview_url'] must be a boolean"
			}
		}
	case "image", "video", "audio", "document", "sticker":
		id, link := str("id"), str("link")
		if (id == "") == (link == "") {
			return typ + " needs exactly one of id and link"
		}
		if link != "" {
			if u, err := url.Parse(link); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return typ + "['link'] must be an http or https URL"
			}
		}
		if _, ok := o["caption"]; ok && (typ == "audio" || typ == "sticker") {
			return typ + "['caption'] is not a valid parameter"
		}
		if _, ok := o["filename"]; ok && typ != "document" {
			return typ + "['filename'] is not a valid parameter"
		}
		// Audio messages reference: audio.voice (boolean) marks an OGG/Opus file a voice
		// message; other media objects have no such parameter.
		if v, ok := o["voice"]; ok {
			if _, isBool := v.(bool); !isBool || typ != "audio" {
				return typ + "['voice'] is not a valid parameter"
			}
		}
	case "location":
		if _, ok := o["latitude"].(float64); !ok {
			return "location['latitude'] is required"
		}
		if _, ok := o["longitude"].(float64); !ok {
			return "location['longitude'] is required"
		}
	case "contacts":
		cs, _ := body["contacts"].([]any)
		if len(cs) == 0 {
			return "contacts is required"
		}
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			name, _ := cm["name"].(map[string]any)
			fn, _ := name["formatted_name"].(string)
			if fn == "" {
				return "contacts[0]['name']['formatted_name'] is required"
			}
			first, _ := name["first_name"].(string)
			last, _ := name["last_name"].(string)
			if first == "" && last == "" {
				return "contacts[0]['name'] needs at least one of first_name, last_name, middle_name, suffix, prefix"
			}
		}
	case "reaction":
		if str("message_id") == "" {
			return "reaction['message_id'] is required"
		}
		if _, ok := o["emoji"].(string); !ok {
			return "reaction['emoji'] is required"
		}
	case "template":
		if str("name") == "" {
			return "template['name'] is required"
		}
		lang, _ := o["language"].(map[string]any)
		if code, _ := lang["code"].(string); code == "" {
			return "template['language']['code'] is required"
		}
		if c, ok := o["components"]; ok {
			if _, isList := c.([]any); !isList {
				return "template['components'] must be an array"
			}
		}
	case "interactive":
		if str("type") == "" {
			return "interactive['type'] is required"
		}
	}
	return ""
}
