package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ListedApplicationsTest {

    @ApplicationPath("api")
    public static class Scanned extends Application {
    }

    @ApplicationPath("/listed/")
    public static class ListsWithoutQuota extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(String.class);
        }
    }

    @ApplicationPath("listed")
    public static class ListsQuota extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(String.class, QuotaProviders.class);
        }
    }

    @ApplicationPath("singletons")
    public static class SingletonsWithoutQuota extends Application {
        @Override
        @SuppressWarnings("deprecation")
        public Set<Object> getSingletons() {
            return Set.of("a resource");
        }
    }

    @ApplicationPath("/")
    public static class AtTheRoot extends ListsWithoutQuota {
    }

    public static class NoPath extends ListsWithoutQuota {
    }

    @Test
    void anApplicationThatListsItsClassesWithoutQuotaProviders_isRefusedOnItsPath() {
        assertThat(ListedApplications.unenforcedPath(ListsWithoutQuota.class)).isEqualTo("/listed/*");
        assertThat(ListedApplications.unenforcedPath(SingletonsWithoutQuota.class)).isEqualTo("/singletons/*");
        assertThat(ListedApplications.unenforcedPath(AtTheRoot.class)).isEqualTo("/*");
    }

    @Test
    void aScannedApplication_oneThatListsQuotaProviders_andAClassWithoutAPath_areLeftAlone() {
        assertThat(ListedApplications.unenforcedPath(Scanned.class)).isNull();
        assertThat(ListedApplications.unenforcedPath(ListsQuota.class)).isNull();
        assertThat(ListedApplications.unenforcedPath(NoPath.class)).isNull();
        assertThat(ListedApplications.unenforcedPath(String.class)).isNull();
    }

    @Test
    void pattern_ofNestedAndWildcardPaths() {
        assertThat(ListedApplications.pattern("v1/api")).isEqualTo("/v1/api/*");
        assertThat(ListedApplications.pattern("/api/*")).isEqualTo("/api/*");
        assertThat(ListedApplications.pattern("")).isEqualTo("/*");
    }
}
