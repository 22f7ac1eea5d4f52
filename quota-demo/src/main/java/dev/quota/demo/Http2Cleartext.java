package dev.quota.demo;

import java.io.IOException;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.FilterChainEvent;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpEvents;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.server.AddOn;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http2.Http2AddOn;
import org.glassfish.grizzly.http2.Http2Configuration;
import org.glassfish.grizzly.http2.Http2ServerFilter;

/**
 * HTTP/2 cleartext on a Grizzly listener, next to HTTP/1.1: Grizzly's own {@link Http2AddOn}
 * (an {@code Upgrade: h2c} offer, or a client that starts with the HTTP/2 preface), and a filter
 * on either side of it that makes Grizzly ignore the upgrade offers it would answer wrongly. Such a
 * request is answered over HTTP/1.1 as if it had made no offer, which a server may always do
 * (RFC 9110, section 7.8), and the client carries on over HTTP/1.1.
 *
 * <p>Grizzly 4 marks every request that offers an upgrade and reads its body as the raw bytes of
 * the new protocol until a filter accepts the offer. Nothing accepted it before this add-on: the
 * answer lost its {@code Content-Type} (a 429 came without {@code application/problem+json}) and a
 * body never ended, so a POST hung. Two offers stay unaccepted with the add-on, and are ignored
 * here:
 * <ul>
 *   <li>an h2c offer on a request with a body ({@code Content-Length} above 0, or chunked): Grizzly
 *       upgrades it, but when the end of the body and the client's HTTP/2 preface arrive in one
 *       read it drops the preface, and every later request on the connection hangs (Java's
 *       {@code HttpClient} sends the body apart from the headers and runs into this now and
 *       then);</li>
 *   <li>any offer the add-on turns down: another protocol ({@code Upgrade: websocket}), or an h2c
 *       offer without the {@code Connection} tokens and {@code HTTP2-Settings} it requires.</li>
 * </ul>
 */
final class Http2Cleartext implements AddOn {

    private final Http2AddOn http2 = new Http2AddOn(Http2Configuration.builder().build());

    /** Adds HTTP/2 and the two filters to the listener's chain; Grizzly calls it when the listener starts. */
    @Override
    public void setup(NetworkListener listener, FilterChainBuilder chain) {
        http2.setup(listener, chain);
        int http2Filter = chain.indexOfType(Http2ServerFilter.class);
        if (http2Filter < 0) {
            throw new IllegalStateException("Grizzly's HTTP/2 add-on added no Http2ServerFilter to " + chain);
        }
        // an upgrade offer travels up the chain from the HTTP codec: the first filter sees it before
        // the HTTP/2 filter can accept it, the second only when the HTTP/2 filter did not
        chain.add(http2Filter + 1, new IgnoreUpgradeOffer(false));
        chain.add(http2Filter, new IgnoreUpgradeOffer(true));
    }

    /**
     * Turns an upgrade offer that reaches it into a plain HTTP/1.1 request: the request is no
     * longer marked, and its body is read by its {@code Content-Length} or chunks again.
     */
    private static final class IgnoreUpgradeOffer extends BaseFilter {

        /** Only offers on requests with a body, before the HTTP/2 filter; otherwise every offer, after it. */
        private final boolean withBodyOnly;

        IgnoreUpgradeOffer(boolean withBodyOnly) {
            this.withBodyOnly = withBodyOnly;
        }

        @Override
        public NextAction handleEvent(FilterChainContext ctx, FilterChainEvent event) throws IOException {
            if (event.type() != HttpEvents.IncomingHttpUpgradeEvent.TYPE) {
                return ctx.getInvokeAction();
            }
            HttpHeader header = ((HttpEvents.IncomingHttpUpgradeEvent) event).getHttpHeader();
            if (!header.isRequest() || withBodyOnly && header.getContentLength() <= 0 && !header.isChunked()) {
                return ctx.getInvokeAction();
            }
            header.getUpgradeDC().recycle();
            header.setIgnoreContentModifiers(false);
            return ctx.getStopAction();
        }

        @Override
        public String toString() {
            return "IgnoreUpgradeOffer[" + (withBodyOnly ? "with a body" : "any") + "]";
        }
    }
}
