package dev.quota.jaxrs.internal;

import jakarta.ws.rs.core.FeatureContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which adapter can read the TCP peer of a request on the running runtime, decided once when the
 * feature is registered. Only adapters whose runtime classes are present are chosen, so none of
 * them is ever loaded without its runtime. On Jersey several containers may be on the class path
 * (Grizzly for tests, a servlet container in production); each of their adapters is registered
 * and the one whose container serves the request answers.
 */
public final class PeerAdapters {

    static final String JERSEY_SERVER = "org.glassfish.jersey.server.ApplicationHandler";
    static final String INJECT_PROVIDER = "jakarta.inject.Provider";
    static final String SERVLET_REQUEST = "jakarta.servlet.http.HttpServletRequest";
    static final String HELIDON_SERVER = "io.helidon.microprofile.server.ServerCdiExtension";

    /** Each adapter: its class, what it reads, and the classes that must be there. */
    private static final List<Candidate> JERSEY = List.of(
            new Candidate("dev.quota.jaxrs.internal.HelidonPeer",
                    "Helidon MP: the request property " + HelidonPeer.PROPERTY, HELIDON_SERVER),
            new Candidate("dev.quota.jaxrs.internal.GrizzlyPeer",
                    "Jersey on Grizzly: org.glassfish.grizzly.http.server.Request#getRemoteAddr()",
                    "org.glassfish.grizzly.http.server.Request",
                    "org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer", INJECT_PROVIDER),
            new Candidate("dev.quota.jaxrs.internal.JettyPeer",
                    "Jersey on Jetty: org.eclipse.jetty.server.Request, its remote socket address",
                    "org.eclipse.jetty.server.Request", "org.glassfish.jersey.jetty.JettyHttpContainer",
                    INJECT_PROVIDER),
            new Candidate("dev.quota.jaxrs.internal.ServletPeer",
                    "Jersey in a servlet container: jakarta.servlet.http.HttpServletRequest#getRemoteAddr()",
                    "jakarta.servlet.http.HttpServletRequest", "org.glassfish.jersey.servlet.ServletContainer",
                    INJECT_PROVIDER));

    /** RESTEasy's: the first whose classes are there (its own, else the servlet API's). */
    private static final List<Candidate> RESTEASY = List.of(
            new Candidate("dev.quota.jaxrs.internal.ResteasyPeer",
                    "RESTEasy: org.jboss.resteasy.spi.HttpRequest#getRemoteAddress()",
                    ResteasyPeer.CONTEXT_CLASS, ResteasyPeer.HTTP_REQUEST_CLASS),
            new Candidate("dev.quota.jaxrs.internal.ResteasyServletPeer",
                    "RESTEasy in a servlet container: jakarta.servlet.http.HttpServletRequest#getRemoteAddr(),"
                            + " injected with @Context",
                    SERVLET_REQUEST));

    private static final List<Candidate> QUARKUS_REST = List.of(
            new Candidate("dev.quota.jaxrs.internal.VertxPeer",
                    "Quarkus REST: the Vert.x HttpServerRequest#remoteAddress()",
                    ResourceMethods.QUARKUS_REQUEST, VertxPeer.HTTP_SERVER_REQUEST));

    private PeerAdapters() {
    }

    /**
     * The adapters for the runtime {@code context} belongs to.
     *
     * @param runtime    the runtime as named in messages ({@code Jersey}, {@code RESTEasy},
     *                   {@code Quarkus REST}, or the
     *                   class of the unknown runtime's feature context)
     * @param adapters   the adapter classes to register, each a request filter; empty when the
     *                   runtime offers no known way to the peer
     * @param mechanisms what each adapter reads, for the log
     */
    public record Selection(String runtime, List<Class<?>> adapters, List<String> mechanisms) {
        public Selection {
            adapters = List.copyOf(adapters);
            mechanisms = List.copyOf(mechanisms);
        }

        /**
         * Why there is no adapter and exactly how to supply the address instead: the start-up
         * error of a feature that needs one.
         */
        public String missingMessage() {
            String why = switch (runtime) {
                case "Jersey" -> "Jersey, but none of its Grizzly, Jetty or servlet containers is on the class path";
                case "RESTEasy" -> "RESTEasy, but without org.jboss.resteasy.core.ResteasyContext, and without the servlet"
                        + " API (on Open Liberty, add the servlet-6.0 feature)";
                case "Quarkus REST" -> "Quarkus REST, but without Vert.x's HttpServerRequest";
                default -> "a Jakarta REST runtime other than Jersey, RESTEasy or Quarkus REST (" + runtime + ")";
            };
            return "quota: cannot find the client's address on this runtime: " + why + ". Anonymous callers are"
                    + " limited per client address, so say where it comes from:"
                    + " QuotaFeature.builder(service).clientAddress(request -> ...), the TCP peer's IP address as"
                    + " your runtime reports it; behind proxies, list them in identity.trustedProxies and the"
                    + " client they name in X-Forwarded-For is counted.";
        }
    }

    /** The adapters for the runtime that calls {@code context}. */
    public static Selection select(FeatureContext context) {
        String hint = context.getClass().getName() + " " + context.getConfiguration().getClass().getName();
        return select(hint, PeerAdapters::present);
    }

    /**
     * The adapters for a runtime.
     *
     * @param hint    class names of the runtime's feature context and configuration
     * @param present whether a class of that name can be loaded
     */
    static Selection select(String hint, Predicate<String> present) {
        // Quarkus REST's classes are named org.jboss.resteasy.reactive: it is not RESTEasy
        boolean quarkus = hint.contains("org.jboss.resteasy.reactive.");
        boolean resteasy = !quarkus && hint.contains("org.jboss.resteasy.");
        boolean jersey = hint.contains("org.glassfish.jersey.");
        if (!quarkus && !resteasy && !jersey) {
            // a wrapped feature context: go by what is on the class path, when that is unambiguous
            boolean quarkusPresent = present.test(ResourceMethods.QUARKUS_REQUEST);
            boolean resteasyPresent = present.test(ResteasyPeer.CONTEXT_CLASS);
            boolean jerseyPresent = present.test(JERSEY_SERVER);
            quarkus = quarkusPresent && !resteasyPresent && !jerseyPresent;
            resteasy = resteasyPresent && !quarkusPresent && !jerseyPresent;
            jersey = jerseyPresent && !quarkusPresent && !resteasyPresent;
        }
        String runtime = quarkus ? "Quarkus REST" : resteasy ? "RESTEasy" : jersey ? "Jersey" : hint.trim();
        List<Candidate> candidates = quarkus ? QUARKUS_REST : resteasy ? RESTEASY : jersey ? JERSEY : List.of();
        List<Class<?>> adapters = new ArrayList<>();
        List<String> mechanisms = new ArrayList<>();
        for (Candidate candidate : candidates) {
            if (candidate.required.stream().allMatch(present)) {
                adapters.add(load(candidate.adapter));
                mechanisms.add(candidate.mechanism);
                if (resteasy) {
                    // one request object per RESTEasy runtime: its own classes answer wherever
                    // they are visible, servlet or not
                    break;
                }
            }
        }
        return new Selection(runtime, adapters, mechanisms);
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, PeerAdapters.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static Class<?> load(String className) {
        try {
            return Class.forName(className, false, PeerAdapters.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("quota-jaxrs is incomplete: " + className + " is missing", e);
        }
    }

    private record Candidate(String adapter, String mechanism, List<String> required) {
        Candidate(String adapter, String mechanism, String... required) {
            this(adapter, mechanism, List.of(required));
        }
    }
}
