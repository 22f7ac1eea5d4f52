package dev.quota.cdi;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.annotation.HandlesTypes;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a servlet container, refuses 503 every request to a Jakarta REST application that lists its
 * classes but not {@link QuotaProviders}: its resources would be served unlimited. The CDI guard
 * ({@code UnenforcedGuard}) catches the same mistake only where the resource classes are CDI beans,
 * which Payara makes of them only with {@code bean-discovery-mode="all"}; this check needs no bean.
 *
 * <p>The container calls it at start-up with the application's {@code Application} subclasses. One
 * with {@code @ApplicationPath} whose {@code getClasses()} or {@code getSingletons()} is not empty
 * and holds no {@code QuotaProviders} gets a filter on its path that answers 503 problem+json
 * ({@code urn:quota:problem:quota-not-enforced}); the reason is logged at ERROR once, at start-up.
 * An application that lists nothing is scanned by the runtime, which finds the provider itself.
 */
@HandlesTypes(Application.class)
public final class ListedApplications implements ServletContainerInitializer {

    private static final Logger log = LoggerFactory.getLogger(ListedApplications.class);

    /** For the container's service loader. */
    public ListedApplications() {
    }

    @Override
    public void onStartup(@Nullable Set<Class<?>> types, ServletContext context) {
        if (types == null) {
            return;
        }
        for (Class<?> type : types) {
            String path = unenforcedPath(type);
            if (path != null) {
                log.error("quota: the Jakarta REST application {} lists its classes but not {}, so its requests"
                        + " would be served without their quota; every request to {} is refused 503. List"
                        + " QuotaProviders in getClasses(), or list nothing and let the runtime scan",
                        type.getName(), QuotaProviders.class.getName(), path);
                context.addFilter("quota-not-enforced:" + type.getName(), new Refusal())
                        .addMappingForUrlPatterns(null, false, path);
            }
        }
    }

    /**
     * The URL pattern of {@code type}'s requests when it is an application that lists its classes
     * without {@link QuotaProviders}; null for any other type, or one that cannot be created here.
     */
    @SuppressWarnings("deprecation") // getSingletons(): still how an application lists instances
    static @Nullable String unenforcedPath(Class<?> type) {
        ApplicationPath path = type.getAnnotation(ApplicationPath.class);
        if (path == null || !Application.class.isAssignableFrom(type) || Modifier.isAbstract(type.getModifiers())) {
            return null;
        }
        Application application;
        try {
            application = (Application) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.debug("quota: cannot create {} to check its classes: {}", type.getName(), e.toString());
            return null;
        }
        Set<Class<?>> classes = application.getClasses();
        Set<Object> singletons = application.getSingletons();
        if (classes.isEmpty() && singletons.isEmpty()) {
            return null;
        }
        if (classes.contains(QuotaProviders.class) || singletons.stream().anyMatch(QuotaProviders.class::isInstance)) {
            return null;
        }
        return pattern(path.value());
    }

    /** {@code "api"} -> {@code "/api/*"}; {@code "/"} or {@code ""} -> {@code "/*"}. */
    static String pattern(String applicationPath) {
        List<String> parts = new ArrayList<>();
        for (String part : applicationPath.split("/", -1)) { // every part, empty ones skipped below
            if (!part.isEmpty() && !part.equals("*")) {
                parts.add(part);
            }
        }
        return parts.isEmpty() ? "/*" : "/" + String.join("/", parts) + "/*";
    }

    /** Answers every request 503 problem+json. */
    private static final class Refusal implements Filter {
        private static final byte[] BODY = UnenforcedGuard.PROBLEM.getBytes(StandardCharsets.UTF_8);

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException {
            HttpServletResponse http = (HttpServletResponse) response;
            http.setStatus(503);
            http.setContentType("application/problem+json");
            http.setContentLength(BODY.length);
            http.getOutputStream().write(BODY);
        }
    }
}
