package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Clock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.glassfish.jersey.server.ResourceConfig;

/** A frozen clock, a service on it, and a server with the quota feature: everything a test talks to. */
final class Fixture implements AutoCloseable {

    /** Every test request comes from loopback; the admin API takes its client address from this header. */
    static final String PEER_HEADER = "X-Test-Peer";

    final MutableClock clock = MutableClock.at(TestConfig.NOON);
    final QuotaService service;
    final TestServer server;

    private Fixture(Builder builder) {
        this.service = QuotaService.builder().store(builder.store.apply(clock)).config(builder.config.build())
                .clock(clock).build();
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
    static Fixture start(TestConfig config) {
        return with(config).start();
    }

    static Builder with(TestConfig config) {
        return new Builder(config);
    }

    @Override
    public void close() {
        server.close();
        service.close();
    }

    /** What differs between fixtures. */
    static final class Builder {
        private final TestConfig config;
        private Function<Clock, QuotaStore> store = clock -> InMemoryStore.builder().clock(clock).build();
        private UnaryOperator<QuotaFeature.Builder> feature = f -> f;
        private Consumer<ResourceConfig> application = app -> { };
        private String adminToken;

        private Builder(TestConfig config) {
            this.config = config;
        }

        Builder store(Function<Clock, QuotaStore> store) {
            this.store = store;
            return this;
        }

        Builder feature(UnaryOperator<QuotaFeature.Builder> feature) {
            this.feature = feature;
            return this;
        }

        Builder application(Consumer<ResourceConfig> application) {
            this.application = application;
            return this;
        }

        /**
         * Mounts {@link QuotaAdminResource} at {@code /admin}, open to {@code token}, on the fixture's
         * clock, with the client address from {@link #PEER_HEADER} (default {@code 198.51.100.1}).
         */
        Builder admin(String token) {
            this.adminToken = token;
            return this;
        }

        Fixture start() {
            return new Fixture(this);
        }
    }
}
