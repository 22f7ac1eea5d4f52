package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.jaxrs.internal.PeerAdapters;
import dev.quota.jaxrs.internal.Peers;
import dev.quota.jaxrs.internal.ResteasyRequestContext;
import dev.quota.jaxrs.internal.ServiceCompanions;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces quotas on every resource method of a Jakarta REST application.
 *
 * <pre>{@code
 * resourceConfig.register(QuotaFeature.builder(quotaService).build());
 * }</pre>
 *
 * <p>Each request is counted against its caller's plan, plus the endpoint's rule when one is bound
 * by {@link Quota @Quota} or matched from the config. Admitted responses carry
 * {@code RateLimit-Policy}, {@code RateLimit} and {@code X-RateLimit-*}; a rejection is answered
 * {@code 429} with {@code Retry-After} and an RFC 9457 problem body; unknown keys {@code 401}.
 * A request refused by an in-flight limit ({@code concurrency}) is answered {@code 429} with problem
 * type {@code too-many-in-flight} and {@code Quota-In-Flight-Limit}, without
 * {@code Retry-After}; an admitted request's in-flight leases are given back when its response has
 * been written or failed ({@link ResponseEnd}), from another thread, batched with other requests'
 * ({@link QuotaService#releaseLater}).
 * Nothing the limiter does answers {@code 500}: a failing check is logged and answered {@code 503}.
 * The filter runs at {@link #PRIORITY}, after authentication, so a principal is available.
 * Requests the runtime refuses on a resource path (405, 406, 415) cost their plan one token too;
 * requests that match no resource (404) are not counted.
 *
 * <p>Anonymous callers are counted per client address, which by default is the TCP peer found on
 * the runtime without user code ({@link ClientAddress#peer()}: Jersey on Grizzly, Jetty or a
 * servlet container; RESTEasy), behind the config's {@code identity.trustedProxies}. On a runtime
 * where it cannot be found, registering the feature fails with a message that says how to supply
 * it with {@link Builder#clientAddress}.
 */
public final class QuotaFeature implements Feature {

    private static final Logger log = LoggerFactory.getLogger(QuotaFeature.class);

    /** The request filter's priority: {@code Priorities.AUTHENTICATION + 100}. */
    public static final int PRIORITY = Priorities.AUTHENTICATION + 100;

    /** Request property holding the {@link QuotaDecision} of an admitted or rejected request. */
    public static final String DECISION = "dev.quota.jaxrs.decision";

    /** Request property holding the name of the rule a request was counted on, when there was one. */
    public static final String RULE = "dev.quota.jaxrs.rule";

    /** Request property holding the {@link Customer} a request was counted against. */
    public static final String CUSTOMER = "dev.quota.jaxrs.customer";

    /** Request property holding the request's {@link QuotaMeter}, once {@link #meter} made one. */
    static final String METER = "dev.quota.jaxrs.meter";

    /**
     * Request property of an admitted request to a {@link SettledCost} method: its
     * {@link SettledCost#bytesPerToken()} as a {@code Long}.
     */
    static final String SETTLED = "dev.quota.jaxrs.settled";

    /** Request property of an admitted request whose cost may be settled: the {@link CostSettling} that will. */
    static final String SETTLING = "dev.quota.jaxrs.settling";

    /** Request property of a response billed by the byte ({@link SettledCost#bytesPerToken()}): its {@link dev.quota.core.RunningCost}. */
    static final String RUNNING = "dev.quota.jaxrs.running";

    /** Request property of a decision that waits for the request's body ({@link AmountLimit}). */
    static final String PENDING = "dev.quota.jaxrs.pending";

    private final QuotaService service;
    private final CallerResolver resolver;
    private final ClientAddress clientAddress;
    private final int arrivedBodyBytes;

    private QuotaFeature(Builder builder) {
        this.service = builder.service;
        this.arrivedBodyBytes = builder.arrivedBodyBytes;
        this.resolver = builder.resolver;
        this.clientAddress = builder.clientAddressOrDefault();
    }

    /** A builder for a feature that decides with {@code service}. */
    public static Builder builder(QuotaService service) {
        return new Builder(service);
    }

    /**
     * Registers the request filter, the response filter, the body interceptor of
     * {@link AmountLimit} methods, the exception mapper and the filter that finds each request's TCP
     * peer on this runtime: filters, an interceptor and a mapper only, which every runtime accepts
     * from a feature. The methods of the admin API get its token check instead of a quota.
     *
     * @throws IllegalStateException if the client address is the TCP peer (the default) and this
     *                               runtime offers no known way to it (the message says how to
     *                               supply it with {@link Builder#clientAddress}), or if the runtime
     *                               did not take one of the filters (its requests would go uncounted)
     */
    @Override
    public boolean configure(FeatureContext context) {
        PeerAdapters.Selection peers = PeerAdapters.select(context);
        if (PeerAddress.usedBy(clientAddress)) {
            if (peers.adapters().isEmpty()) {
                throw new IllegalStateException(peers.missingMessage());
            }
            log.info("quota: client addresses from {}", String.join("; ", peers.mechanisms()));
        }
        for (Class<?> adapter : peers.adapters()) {
            // registered as classes, so that the runtime creates and injects them
            context.register(adapter, Peers.PRIORITY);
        }
        if ("RESTEasy".equals(peers.runtime()) && ResteasyRequestContext.available()) {
            // so that a resource method takes @Context ContainerRequestContext for meter(request), as on Jersey
            context.register(ResteasyRequestContext.class, Peers.PRIORITY);
        }
        QuotaBindings bindings = new QuotaBindings(service);
        List<Object> enforcing = List.of(new QuotaRequestFilter(service, resolver, clientAddress, bindings,
                        arrivedBodyBytes),
                new QuotaResponseFilter(service), new RuntimeRefusalFilter(service, resolver, clientAddress),
                new AmountInterceptor(service), new QuotaExceededMapper(), new ResponseEnd.EndOfResponse());
        for (Object provider : enforcing) {
            context.register(provider, provider instanceof QuotaExceededMapper || provider instanceof AmountInterceptor
                    ? Priorities.USER : provider instanceof ResponseEnd.EndOfResponse ? ResponseEnd.PRIORITY : PRIORITY);
        }
        // a response the client did not take: one sampled line instead of the runtime's stack trace
        context.register(new ClientWriteFailures(), ClientWriteFailures.PRIORITY);
        // and a body the client did not finish sending: one sampled line and a 400 or 408
        context.register(new ClientReadFailures(), ClientReadFailures.PRIORITY);
        if ("Jersey".equals(peers.runtime())) {
            JerseyResponderLog.installIfJerseyIsTheApplications(); // and what Jersey meets outside them
        }
        // binds every resource method at start-up where the runtime runs dynamic features: early errors
        context.register(bindings);
        requireRegistered(context, enforcing);
        // what the service's builder wants beside the filters, on every feature over it (quota-cdi's
        // request view, so that a feature the application built itself counts as enforcing)
        for (ServiceCompanions.Companion companion : ServiceCompanions.of(service)) {
            context.register(companion.provider().get(), companion.priority());
        }
        return true;
    }

    /**
     * Fails start-up when the runtime dropped a provider this feature registered: its resource
     * methods would otherwise be served without their quota. Judged on runtimes whose configuration
     * lists what a feature registered (Jersey, RESTEasy); Quarkus REST lists none of it, but
     * takes every filter, interceptor and mapper.
     */
    private static void requireRegistered(FeatureContext context, List<Object> providers) {
        Configuration configuration = context.getConfiguration();
        List<Object> missing = providers.stream().filter(provider -> !configuration.isRegistered(provider)).toList();
        if (!missing.isEmpty() && missing.size() < providers.size()) {
            throw new IllegalStateException("quota: the Jakarta REST runtime (" + context.getClass().getName()
                    + ") did not register " + missing.get(0).getClass().getSimpleName() + ", which QuotaFeature"
                    + " registered; its requests would not be counted, so the application does not start");
        }
    }

    /**
     * The customer the request was counted against; null when the quota filter did not run or
     * answered 401. Portable where the runtime injects {@code ContainerRequestContext} (Jersey);
     * for amounts use {@link AmountLimit}, which works on every runtime.
     */
    public static @Nullable Customer customer(ContainerRequestContext request) {
        return request.getProperty(CUSTOMER) instanceof Customer customer ? customer : null;
    }

    /** The decision taken for the request; null when the quota filter did not run or answered 401. */
    public static @Nullable QuotaDecision decision(ContainerRequestContext request) {
        return request.getProperty(DECISION) instanceof QuotaDecision decision ? decision : null;
    }

    /**
     * The meter of the request's actual cost, made on the first call: what the resource measures
     * there is settled against the rule's cost once the response has been written (a request the
     * quota filter did not admit has nothing to settle: its meter measures for nobody). A resource
     * method takes the request with {@code @Context ContainerRequestContext request} on Jersey,
     * RESTEasy (where this feature puts it into RESTEasy's context data, which lacks it otherwise)
     * and Quarkus REST; with quota-cdi, {@code QuotaRequest.meter()} is the same meter. A runtime
     * that injects none can set the {@value QuotaMeter#HEADER} response header instead, settled once
     * at the end. Call it on the request's thread (in the resource method); the meter itself may
     * then be used from any thread.
     */
    public static QuotaMeter meter(ContainerRequestContext request) {
        // RESTEasy injects a proxy that answers on the request's thread only: the settle needs the request
        ContainerRequestContext own = ResteasyRequestContext.own(request);
        if (own.getProperty(METER) instanceof QuotaMeter meter) {
            return meter;
        }
        QuotaMeter meter = new QuotaMeter();
        own.setProperty(METER, meter);
        CostSettling.metered(own, meter);
        return meter;
    }

    /** Settings for a {@link QuotaFeature}. */
    public static final class Builder {
        private final QuotaService service;
        private CallerResolver resolver = CallerResolver.apiKey();
        private @Nullable ClientAddress clientAddress;
        private int arrivedBodyBytes = ArrivedBodies.DEFAULT_MOST;

        private Builder(QuotaService service) {
            this.service = Objects.requireNonNull(service, "service");
        }

        /**
         * How callers are identified; default {@link CallerResolver#apiKey()}.
         *
         * @throws NullPointerException if {@code resolver} is null
         */
        public Builder callerResolver(CallerResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * Where the connection's peer address comes from, for anonymous callers and failed API-key
         * lookups; default {@link ClientAddress#peer()}: the TCP peer as the runtime reports it. The
         * service believes {@code X-Forwarded-For} only when this peer is one of the active config's
         * {@code identity.trustedProxies} (read per request, so a reload applies). Set it on a
         * runtime where the peer is not found: {@code request -> ...}.
         *
         * @throws NullPointerException if {@code clientAddress} is null
         */
        public Builder clientAddress(ClientAddress clientAddress) {
            this.clientAddress = Objects.requireNonNull(clientAddress, "clientAddress");
            return this;
        }

        /**
         * The largest body of an {@link AmountLimit} method that is decided in one store call when
         * it arrived with its headers: its {@code Content-Length} at most this, and all of it
         * already read by the server (Jersey on Grizzly or Jetty 12 tells; elsewhere the body is
         * taken as not there). Such a request is charged once its body is parsed, everything at
         * once: plan, rule, shared and amount limits, in-flight leases. A larger body, one without
         * a length (chunked), one sent after {@code Expect: 100-continue} or not all here yet is
         * charged its plan on arrival and decided again when read (two store calls), so a slow
         * body costs its sender and a spent caller is refused before it is read. Default
         * {@value ArrivedBodies#DEFAULT_MOST} bytes; 0 decides every body in two steps.
         *
         * @throws IllegalArgumentException if {@code bytes} is negative
         */
        public Builder arrivedBodyBytes(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("arrivedBodyBytes must be >= 0 but was " + bytes);
            }
            this.arrivedBodyBytes = bytes;
            return this;
        }

        /** The feature, ready to register. */
        public QuotaFeature build() {
            return new QuotaFeature(this);
        }

        private ClientAddress clientAddressOrDefault() {
            return clientAddress != null ? clientAddress : ClientAddress.peer();
        }
    }
}
