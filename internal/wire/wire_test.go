package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"
)

func TestReadFrameAssemblesAndRefuses(t *testing.T) {
	raw, _ := hex.DecodeString(seed002)
	fr := NewFrameReader(io.MultiReader(bytes.NewReader(raw[:3]), bytes.NewReader(raw[3:20]), bytes.NewReader(raw[20:])), 1024)
	frame, err := fr.ReadFrame(nil)
	if err != nil || !bytes.Equal(frame, raw[4:]) {
		t.Fatalf("frame % x, err %v", frame, err)
	}
	if _, err := NewFrameReader(bytes.NewReader([]byte{0, 0, 4, 1}), 1024).ReadFrame(nil); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversized frame: %v", err)
	}
	if _, err := NewFrameReader(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}), 1024).ReadFrame(nil); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("negative size: %v", err)
	}
	short, err := NewFrameReader(bytes.NewReader([]byte{0, 0, 0, 2, 9, 9}), 1024).ReadFrame(nil)
	var sizeErr *FrameSizeError
	if !errors.As(err, &sizeErr) || !bytes.Equal(short, []byte{9, 9}) {
		t.Fatalf("short frame: % x, %v", short, err)
	}
	if _, err := NewFrameReader(bytes.NewReader([]byte{0, 0, 0, 20, 1}), 1024).ReadFrame(nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: %v", err)
	}
}

func TestReadFrameGrowsLargeFrames(t *testing.T) {
	payload := bytes.Repeat([]byte{7}, 3*growChunk+5)
	stream := append([]byte{0, 0x03, 0x00, 0x05}, payload...)
	frame, err := NewFrameReader(bytes.NewReader(stream), 1<<20).ReadFrame(nil)
	if err != nil || !bytes.Equal(frame, payload) {
		t.Fatalf("len %d err %v", len(frame), err)
	}
}

func TestParseRequestHeader(t *testing.T) {
	raw, _ := hex.DecodeString(seed002)
	h, body, err := ParseRequestHeader(raw[4:], true)
	if err != nil {
		t.Fatal(err)
	}
	if h.APIKey != 18 || h.APIVersion != 26442 || h.CorrelationID != 1333056139 || h.ClientID == nil || *h.ClientID != "kafka-cli" {
		t.Fatalf("header %+v", h)
	}
	if want, _ := hex.DecodeString("0a6b61666b612d636c6904302e3100"); !bytes.Equal(body, want) {
		t.Fatalf("body % x", body)
	}
	if _, _, err := ParseRequestHeader([]byte{0, 18, 0, 0, 0, 0, 0, 1, 0, 9, 'a'}, false); err == nil {
		t.Fatal("client id longer than the frame was accepted")
	}
	if _, _, err := ParseRequestHeader([]byte{0, 18, 0, 3, 0, 0, 0, 1, 0xff, 0xff, 2, 5, 0, 3, 0}, true); err == nil {
		t.Fatal("tagged fields out of order were accepted")
	}
}
