package dev.quota.jaxrs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.servlet.ServletRegistration;
import org.glassfish.grizzly.servlet.WebappContext;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.jetty.JettyHttpContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.jspecify.annotations.Nullable;

/** The Jersey containers a test can run an application on, each on a free loopback port. */
public enum Containers {

    /** {@code jersey-container-grizzly2-http}. */
    GRIZZLY {
        @Override
        public Running start(ResourceConfig app) {
            HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), app);
            return new Running(server.getListener("grizzly").getPort(), server::shutdownNow);
        }

        @Override
        public Running start(ResourceConfig app, Duration writeTimeout) {
            HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), app);
            server.getListener("grizzly").getTransport().setWriteTimeout(writeTimeout.toMillis(), TimeUnit.MILLISECONDS);
            return new Running(server.getListener("grizzly").getPort(), server::shutdownNow);
        }
    },

    /** {@code jersey-container-jetty-http}: Jetty 12. */
    JETTY {
        @Override
        public Running start(ResourceConfig app) {
            return start(app, null);
        }

        @Override
        public Running start(ResourceConfig app, @Nullable Duration writeTimeout) {
            Server server = JettyHttpContainerFactory.createServer(URI.create("http://127.0.0.1:0/"), app);
            ServerConnector connector = (ServerConnector) server.getConnectors()[0];
            if (writeTimeout != null) {
                connector.setIdleTimeout(writeTimeout.toMillis());
            }
            int port = connector.getLocalPort();
            return new Running(port, () -> {
                try {
                    server.stop();
                } catch (Exception e) {
                    throw new IllegalStateException("Jetty did not stop", e);
                }
            });
        }
    },

    /** Jersey's {@code ServletContainer} in Grizzly's servlet container. */
    SERVLET {
        @Override
        public Running start(ResourceConfig app) {
            HttpServer server = new HttpServer();
            server.addListener(new NetworkListener("grizzly", "127.0.0.1", 0));
            WebappContext context = new WebappContext("quota-test");
            ServletRegistration servlet = context.addServlet("jersey", new ServletContainer(app));
            servlet.addMapping("/*");
            context.deploy(server);
            try {
                server.start();
            } catch (IOException e) {
                server.shutdownNow();
                throw new UncheckedIOException(e);
            }
            return new Running(server.getListener("grizzly").getPort(), server::shutdownNow);
        }
    };

    /** Starts {@code app}; the caller closes what this returns. */
    public abstract Running start(ResourceConfig app);

    /**
     * Starts {@code app} with a bound on how long a write may wait for the client, the server's own
     * knob as docs/operations.md names it: Grizzly's {@code TCPNIOTransport.setWriteTimeout}, Jetty's
     * {@code ServerConnector.setIdleTimeout}. It applies to connections made after the start.
     */
    public Running start(ResourceConfig app, Duration writeTimeout) {
        throw new UnsupportedOperationException(this + " has no write timeout here");
    }

    /** A started server. */
    public record Running(int port, Runnable stop) implements AutoCloseable {
        @Override
        public void close() {
            stop.run();
        }
    }
}
