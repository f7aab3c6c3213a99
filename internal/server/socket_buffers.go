package server

import "net"

// setSocketBuffers applies socket.send.buffer.bytes and
// socket.receive.buffer.bytes to an accepted connection, as Kafka does.
// Setting either turns off the kernel's autotuning of that buffer, so
// only a positive value is applied. A failure is logged, not fatal: the
// connection works with the OS default.
func (s *Server) setSocketBuffers(nc net.Conn) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return
	}
	if n := s.cfg.SendBufferBytes; n > 0 {
		if err := tc.SetWriteBuffer(n); err != nil {
			s.logger.Warn("setting SO_SNDBUF", "bytes", n, "err", err)
		}
	}
	if n := s.cfg.ReceiveBufferBytes; n > 0 {
		if err := tc.SetReadBuffer(n); err != nil {
			s.logger.Warn("setting SO_RCVBUF", "bytes", n, "err", err)
		}
	}
}
