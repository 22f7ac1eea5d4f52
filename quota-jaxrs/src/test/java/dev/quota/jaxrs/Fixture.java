package dev.quota.jaxrs;

import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaServiceBuilder;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import dev.quota.testkit.MutableClock;
import java.time.Clock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.glassfish.jersey.server.ResourceConfig;

/** A frozen clock, a service on it, and a server with the quota feature: everything a test talks to. */
public final class Fixture implements AutoCloseable {

    /**
     * The peer address tests pretend to connect from: header {@code X-Test-Peer}, else 127.0.0.1.
     * (The real peer is always 127.0.0.1 here.)
     */
    public static final ClientAddress PEER = request -> {
        String peer = request.getHeaderString("X-Test-Peer");
        return peer != null ? peer : "127.0.0.1";
    };

    /** Every test request comes from loopback; the admin API takes its client address from this header. */
    public static final String PEER_HEADER = "X-Test-Peer";

    public final MutableClock clock = MutableClock.at(TestConfig.NOON);
    public final QuotaService service;
    public final TestServer server;

    private Fixture(Builder builder) {
        QuotaServiceBuilder services = QuotaService.builder().store(builder.store.apply(clock))
                .config(builder.config.build()).clock(clock);
        if (builder.customers != null) {
            services.customers(builder.customers);
        }
        if (builder.listener != null) {
            services.listener(builder.listener);
        }
        this.service = services.build();
        try {
            this.server = TestServer.start(builder.feature.apply(QuotaFeature.builder(service)).build(), app -> {
                app.register(TestResources.Payments.class).property(TestResources.Payments.SERVICE, service);
                if (builder.adminToken != null) {
                    app.register(QuotaAdminResource.builder(service, builder.adminToken)
                            .clientAddress(request -> {
                                String peer = request.getHeaderString(PEER_HEADER);
                                return peer == null ? "198.51.100.1" : peer;
                            })
                            .clock(clock).build());
                }
                builder.application.accept(app);
            });
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
    }

    /** In-JVM buckets on the fixture's clock, the default feature. */
    public static Fixture start(TestConfig config) {
        return with(config).start();
    }

    public static Builder with(TestConfig config) {
        return new Builder(config);
    }

    @Override
    public void close() {
        server.close();
        service.close();
    }

    /** What differs between fixtures. */
    public static final class Builder {
        private final TestConfig config;
        private Function<Clock, QuotaStore> store = clock -> InMemoryStore.builder().clock(clock).build();
        private UnaryOperator<QuotaFeature.Builder> feature = f -> f.clientAddress(PEER);
        private Consumer<ResourceConfig> application = app -> { };
        private String adminToken;
        private CustomerDirectory customers;
        private QuotaListener listener;

        private Builder(TestConfig config) {
            this.config = config;
        }

        public Builder store(Function<Clock, QuotaStore> store) {
            this.store = store;
            return this;
        }

        /** Customers from this directory instead of the config's. */
        public Builder customers(CustomerDirectory customers) {
            this.customers = customers;
            return this;
        }

        /** A listener of the service, beside its own. */
        public Builder listener(QuotaListener listener) {
            this.listener = listener;
            return this;
        }

        public Builder feature(UnaryOperator<QuotaFeature.Builder> feature) {
            this.feature = feature;
            return this;
        }

        public Builder application(Consumer<ResourceConfig> application) {
            this.application = application;
            return this;
        }

        /**
         * Mounts {@link QuotaAdminResource} at {@code /admin}, open to {@code token}, on the fixture's
         * clock, with the client address from {@link #PEER_HEADER} (default {@code 198.51.100.1}).
         */
        public Builder admin(String token) {
            this.adminToken = token;
            return this;
        }

        public Fixture start() {
            return new Fixture(this);
        }
    }
}
