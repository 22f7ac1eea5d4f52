package dev.quota.demo;

import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * HTTP/2 cleartext next to HTTP/1.1: a client that starts with the HTTP/2 preface, or that offers
 * {@code Upgrade: h2c} on a request without a body, speaks HTTP/2. An offer Jetty would refuse
 * with a 400 (no or a malformed {@code HTTP2-Settings}) is ignored instead: the request is answered
 * over HTTP/1.1 as if it had made no offer, which a server may always do (RFC 9110, section 7.8).
 */
final class CleartextHttp2 extends HTTP2CServerConnectionFactory {

    CleartextHttp2(HttpConfiguration http) {
        super(http);
    }

    @Override
    public @Nullable Connection upgradeConnection(Connector connector, EndPoint endPoint, MetaData.Request request,
                                                  HttpFields.Mutable response101) {
        try {
            return super.upgradeConnection(connector, endPoint, request, response101);
        } catch (BadMessageException | IllegalArgumentException e) {
            return null; // not upgraded: HTTP/1.1 goes on
        }
    }
}
