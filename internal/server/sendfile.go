package server

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// maxSendfileChunk keeps each sendfile call under the kernel's per-call
// limit (about 2 GiB).
const maxSendfileChunk = 1 << 30

// sendFile copies length bytes of f from offset to a TCP socket with
// sendfile(2), so the bytes go from the page cache to the
// socket without entering user space. The caller checks nc is TCP. It
// never moves f's file position,
// so many connections can send from one segment file at once.
func sendFile(nc net.Conn, f *os.File, offset, length int64) error {
	sock, err := nc.(*net.TCPConn).SyscallConn()
	if err != nil {
		return err
	}
	file, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var sendErr error
	ctrlErr := file.Control(func(in uintptr) {
		writeErr := sock.Write(func(out uintptr) bool {
			for length > 0 {
				n, err := syscall.Sendfile(int(out), int(in), &offset, int(min(length, maxSendfileChunk)))
				if n > 0 {
					length -= int64(n)
				}
				switch {
				case errors.Is(err, syscall.EAGAIN):
					return false // wait until the socket is writable
				case errors.Is(err, syscall.EINTR):
					continue
				case err != nil:
					sendErr = err
					return true
				case n == 0:
					sendErr = io.ErrUnexpectedEOF // the file is shorter than promised
					return true
				}
			}
			return true
		})
		if sendErr == nil {
			sendErr = writeErr
		}
	})
	if ctrlErr != nil {
		return ctrlErr
	}
	return sendErr
}
