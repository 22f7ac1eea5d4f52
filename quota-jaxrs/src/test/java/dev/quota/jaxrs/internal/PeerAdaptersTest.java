package dev.quota.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.container.PreMatching;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which runtime adapter is chosen from what is on the class path, and what a user is told when none fits. */
class PeerAdaptersTest {

    private static final String JERSEY_CONTEXT = "org.glassfish.jersey.model.internal.FeatureContextWrapper";
    private static final String RESTEASY_CONTEXT = "org.jboss.resteasy.core.providerfactory.FeatureContextDelegate";

    private static final Set<String> GRIZZLY = Set.of("org.glassfish.grizzly.http.server.Request",
            "org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer", "jakarta.inject.Provider");
    private static final Set<String> SERVLET = Set.of("jakarta.servlet.http.HttpServletRequest",
            "org.glassfish.jersey.servlet.ServletContainer", "jakarta.inject.Provider");

    @Test
    void jerseyOnGrizzly_registersTheGrizzlyAdapterOnly() {
        PeerAdapters.Selection selection = PeerAdapters.select(JERSEY_CONTEXT, GRIZZLY::contains);

        assertThat(selection.runtime()).isEqualTo("Jersey");
        assertThat(selection.adapters()).containsExactly(GrizzlyPeer.class);
    }

    @Test
    void jerseyWithServletApiButNotJerseysServletContainer_doesNotRegisterTheServletAdapter() {
        PeerAdapters.Selection selection = PeerAdapters.select(JERSEY_CONTEXT,
                name -> GRIZZLY.contains(name) || name.equals("jakarta.servlet.http.HttpServletRequest"));

        assertThat(selection.adapters()).containsExactly(GrizzlyPeer.class);
    }

    @Test
    void jerseyWithGrizzlyAndServletContainers_registersBoth() {
        PeerAdapters.Selection selection = PeerAdapters.select(JERSEY_CONTEXT,
                name -> GRIZZLY.contains(name) || SERVLET.contains(name));

        assertThat(selection.adapters()).containsExactly(GrizzlyPeer.class, ServletPeer.class);
    }

    @Test
    void resteasy_registersItsAdapterWhateverElseIsPresent() {
        PeerAdapters.Selection selection = PeerAdapters.select(RESTEASY_CONTEXT, name -> true);

        assertThat(selection.runtime()).isEqualTo("RESTEasy");
        assertThat(selection.adapters()).containsExactly(ResteasyPeer.class);
        assertThat(selection.mechanisms()).containsExactly("RESTEasy: org.jboss.resteasy.spi.HttpRequest#getRemoteAddress()");
    }

    /**
     * What broke: Open Liberty runs RESTEasy but keeps its classes from the application, so no
     * adapter was found and a quota-cdi WAR failed to start there.
     */
    @Test
    void resteasyWhoseOwnClassesAreHidden_readsTheServletRequest() {
        PeerAdapters.Selection selection = PeerAdapters.select(RESTEASY_CONTEXT,
                name -> name.equals(PeerAdapters.SERVLET_REQUEST));

        assertThat(selection.runtime()).isEqualTo("RESTEasy");
        assertThat(selection.adapters()).containsExactly(ResteasyServletPeer.class);
    }

    /**
     * What broke: the adapter for RESTEasy in a servlet container ran after matching, so on Open
     * Liberty a request the runtime refused (405, 415) had no client address and went uncounted.
     */
    @Test
    void everyAdapterOfEveryRuntime_runsBeforeMatching() {
        List<PeerAdapters.Selection> selections = List.of(
                PeerAdapters.select(JERSEY_CONTEXT, name -> true),
                PeerAdapters.select(RESTEASY_CONTEXT, name -> true),
                PeerAdapters.select(RESTEASY_CONTEXT, name -> name.equals(PeerAdapters.SERVLET_REQUEST)),
                PeerAdapters.select("org.jboss.resteasy.reactive.server.jaxrs.FeatureContextImpl", name -> true));
        List<Class<?>> adapters = selections.stream().flatMap(selection -> selection.adapters().stream()).toList();

        assertThat(adapters).contains(GrizzlyPeer.class, JettyPeer.class, ServletPeer.class, HelidonPeer.class,
                ResteasyPeer.class, ResteasyServletPeer.class, VertxPeer.class);
        assertThat(adapters).allSatisfy(adapter -> assertThat(adapter.isAnnotationPresent(PreMatching.class))
                .as("%s is @PreMatching", adapter.getSimpleName()).isTrue());
    }

    @Test
    void resteasyWithNeitherItsClassesNorTheServletApi_hasNoAdapter_andTheMessageNamesTheLibertyFeature() {
        PeerAdapters.Selection selection = PeerAdapters.select(RESTEASY_CONTEXT, name -> false);

        assertThat(selection.adapters()).isEmpty();
        assertThat(selection.missingMessage()).contains("RESTEasy, but without org.jboss.resteasy.core.ResteasyContext,"
                + " and without the servlet API (on Open Liberty, add the servlet-6.0 feature)");
    }

    @Test
    void wrappedFeatureContext_goesByTheOneRuntimeOnTheClassPath() {
        PeerAdapters.Selection selection = PeerAdapters.select("com.example.Wrapper com.example.Config",
                name -> name.equals(PeerAdapters.JERSEY_SERVER) || GRIZZLY.contains(name));

        assertThat(selection.runtime()).isEqualTo("Jersey");
        assertThat(selection.adapters()).containsExactly(GrizzlyPeer.class);
    }

    @Test
    void jerseyWithoutAKnownContainer_hasNoAdapter_andTheMessageSaysHowToSupplyTheAddress() {
        PeerAdapters.Selection selection = PeerAdapters.select(JERSEY_CONTEXT, name -> false);

        assertThat(selection.adapters()).isEmpty();
        assertThat(selection.missingMessage())
                .startsWith("quota: cannot find the client's address on this runtime: Jersey, but none of its Grizzly,"
                        + " Jetty or servlet containers is on the class path.")
                .contains("QuotaFeature.builder(service).clientAddress(request -> ...)")
                .contains("identity.trustedProxies");
    }

    @Test
    void otherRuntime_hasNoAdapter_andTheMessageNamesIt() {
        PeerAdapters.Selection selection = PeerAdapters.select("org.apache.cxf.jaxrs.FeatureContextImpl", name -> false);

        assertThat(selection.adapters()).isEmpty();
        assertThat(selection.missingMessage()).contains("a Jakarta REST runtime other than Jersey, RESTEasy or"
                + " Quarkus REST (org.apache.cxf.jaxrs.FeatureContextImpl)");
    }

    @Test
    void quarkusRest_isNotTakenForRestEasy_andReadsTheVertxRequest() {
        // Quarkus REST's classes live in org.jboss.resteasy.reactive; RESTEasy's context class is absent there
        PeerAdapters.Selection selection = PeerAdapters.select(
                "org.jboss.resteasy.reactive.server.jaxrs.FeatureContextImpl", name -> !name.equals(ResteasyPeer.CONTEXT_CLASS));

        assertThat(selection.runtime()).isEqualTo("Quarkus REST");
        assertThat(selection.adapters()).containsExactly(VertxPeer.class);
        assertThat(selection.mechanisms()).containsExactly("Quarkus REST: the Vert.x HttpServerRequest#remoteAddress()");
    }

    @Test
    void helidon_readsItsRemoteHostRequestProperty() {
        PeerAdapters.Selection selection = PeerAdapters.select(JERSEY_CONTEXT,
                name -> name.equals(PeerAdapters.HELIDON_SERVER));

        assertThat(selection.runtime()).isEqualTo("Jersey");
        assertThat(selection.adapters()).containsExactly(HelidonPeer.class);
        assertThat(selection.mechanisms()).containsExactly("Helidon MP: the request property io.helidon.jaxrs.remote-host");
    }

    @Test
    void normalize_dropsIpv6BracketsAndZones_andTurnsEmptyIntoNothing() {
        assertThat(Peers.normalize("[2001:db8::1]")).isEqualTo("2001:db8::1");
        assertThat(Peers.normalize("fe80::1%eth0")).isEqualTo("fe80::1");
        assertThat(Peers.normalize(" 203.0.113.7 ")).isEqualTo("203.0.113.7");
        assertThat(Peers.normalize("")).isNull();
        assertThat(Peers.normalize(null)).isNull();
    }
}
