package wacloudtest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxUpload bounds what the fake reads of an upload: the largest file the API takes
// (a 100 MB document) and the form around it.
const maxUpload = 100<<20 + 1<<20

// uploadLimits are the largest files the API takes, by MIME type (Meta's "Supported media
// types"): images 5 MB, audio and video 16 MB, documents 100 MB, stickers (webp) 500 KB.
var uploadLimits = map[string]int{
	"audio/aac": 16 << 20, "audio/amr": 16 << 20, "audio/mpeg": 16 << 20, "audio/mp4": 16 << 20, "audio/ogg": 16 << 20,
	"image/jpeg": 5 << 20, "image/png": 5 << 20, "image/webp": 500 << 10,
	"video/3gpp": 16 << 20, "video/mp4": 16 << 20,
	"text/plain": 100 << 20, "application/pdf": 100 << 20,
	"application/msword":            100 << 20,
	"application/vnd.ms-excel":      100 << 20,
	"application/vnd.ms-powerpoint": 100 << 20,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   100 << 20,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         100 << 20,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": 100 << 20,
}

// readForm reads a multipart body: its text fields and its part named "file".
func readForm(w http.ResponseWriter, r *http.Request) (map[string]string, *File) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		return nil, nil
	}
	form := map[string]string{}
	for k, v := range r.MultipartForm.Value {
		form[k] = v[0]
	}
	fhs := r.MultipartForm.File["file"]
	if len(fhs) == 0 {
		return form, nil
	}
	f, err := fhs[0].Open()
	if err != nil {
		return form, nil
	}
	defer f.Close()
	content, _ := io.ReadAll(f)
	return form, &File{Name: fhs[0].Filename, ContentType: fhs[0].Header.Get("Content-Type"), Content: content}
}

// uploadMedia is POST /{version}/{phone_number_id}/media: a multipart form of
// messaging_product (whatsapp), type (the file's MIME type) and file. It answers the new
// media id, which messages may then name ({"image": {"id": ...}}) and GET /{media_id} and
// the download URL serve, like a customer's file.
func (s *Server) uploadMedia(w http.ResponseWriter, call Call) {
	if call.Form == nil {
		writeFailure(w, invalid("The parameter messaging_product is required.", "the body must be multipart/form-data"))
		return
	}
	if mp, ok := call.Form["messaging_product"]; !ok {
		writeFailure(w, invalid("The parameter messaging_product is required.", ""))
		return
	} else if mp != "whatsapp" {
		writeFailure(w, invalid("Invalid parameter", "messaging_product must be whatsapp"))
		return
	}
	if call.File == nil || len(call.File.Content) == 0 {
		writeFailure(w, invalid("The parameter file is required.", ""))
		return
	}
	typ := strings.ToLower(strings.TrimSpace(call.Form["type"]))
	if typ == "" {
		writeFailure(w, invalid("The parameter type is required.", ""))
		return
	}
	limit, ok := uploadLimits[typ]
	if !ok {
		writeFailure(w, invalid("Invalid parameter", "Param type must be a supported media type, not "+typ))
		return
	}
	if len(call.File.Content) > limit {
		writeFailure(w, invalid("Invalid parameter",
			fmt.Sprintf("the file is %d bytes: %s files may have at most %d", len(call.File.Content), typ, limit)))
		return
	}
	s.mu.Lock()
	s.mediaSeq++
	id := fmt.Sprintf("%d", 1013859600000000+s.mediaSeq)
	s.media[id] = mediaFile{content: call.File.Content, mime: typ}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"id": id})
}
