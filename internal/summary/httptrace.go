package summary

import "github.com/inferencebench/inferencebench/internal/stats"

// addHTTPTrace sets the row's figures of where its requests' time went
// before their first byte (BENCH_HTTP_TRACE), over its successful
// requests that were traced; none if no request was:
//
//   - http_traced counts them, http_reused_conns those sent on a
//     connection that had served an earlier request;
//   - dns_s_mean, connect_s_mean and tls_s_mean are the mean lengths of
//     the DNS lookup, TCP connect and TLS handshake over the requests that
//     opened a connection (absent if none did);
//   - got_conn_s_mean, wrote_s_mean and first_byte_s_mean are the mean
//     times from a request's start until it had its connection, had
//     written the request, and had the first byte of the response;
//   - connect_share_of_ttft is the time spent opening connections (DNS,
//     connect and TLS) over the time to first token, both summed over
//     the requests with a first token.
func (row *Row) addHTTPTrace(rounds []stats.Round) {
	var (
		traced, reused, opened  int
		dns, conn, tls          float64
		got, wrote, first       float64
		setupOfTTFT, ttftTraced float64
	)
	for _, rd := range rounds {
		for _, res := range rd.Requests() {
			h := res.HTTP
			if h == nil || res.Err != nil {
				continue
			}
			traced++
			got, wrote, first = got+h.GotConn.Seconds(), wrote+h.Wrote.Seconds(), first+h.FirstByte.Seconds()
			if h.Reused {
				reused++
			} else if h.GotConn > 0 {
				opened++
				dns, conn, tls = dns+h.DNS.Seconds(), conn+h.Connect.Seconds(), tls+h.TLS.Seconds()
			}
			if res.TTFT > 0 {
				setupOfTTFT += h.Setup().Seconds()
				ttftTraced += res.TTFT.Seconds()
			}
		}
	}
	if traced == 0 {
		return
	}
	row.HTTPTraced, row.HTTPReusedConns = &traced, &reused
	n := float64(traced)
	row.GotConnSMean, row.WroteSMean, row.FirstByteSMean = num(got/n), num(wrote/n), num(first/n)
	if opened > 0 {
		o := float64(opened)
		row.DNSSMean, row.ConnectSMean, row.TLSSMean = num(dns/o), num(conn/o), num(tls/o)
	}
	if ttftTraced > 0 {
		row.ConnectShareOfTTFT = num(setupOfTTFT / ttftTraced)
	}
}
