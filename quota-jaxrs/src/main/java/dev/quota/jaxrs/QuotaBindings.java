package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@link QuotaBinding} of each resource method, worked out once and kept.
 *
 * <p>Also a {@link DynamicFeature}, registered beside the filter, which binds every resource method
 * as the application starts, so that a mistake in an annotation ({@link AmountLimit} on a method
 * without a {@link QuotaAmount} body) fails start-up, and registers a {@link MethodBinding} for it
 * that hands the quota filter the binding on each request. A runtime that drops dynamic features
 * registered by a feature (Quarkus REST) loses only this early check and the shortcut: the quota
 * filter then asks here on every request, which costs a map lookup after the method's first, and
 * the mistake is answered 503 and logged on the method's first request.
 */
final class QuotaBindings implements DynamicFeature {

    private final QuotaService service;
    private final ConcurrentMap<Key, QuotaBinding> bindings = new ConcurrentHashMap<>();

    QuotaBindings(QuotaService service) {
        this.service = service;
    }

    /**
     * The binding of {@code method} served by {@code resourceClass}.
     *
     * @throws IllegalStateException if its annotations are wrong (then asked again on the next request)
     */
    QuotaBinding of(Class<?> resourceClass, Method method) {
        Key key = new Key(resourceClass, method);
        QuotaBinding binding = bindings.get(key);
        return binding != null ? binding : bindings.computeIfAbsent(key, k -> QuotaBinding.of(k.type, k.method, service));
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass != null && method != null) {
            context.register(new MethodBinding(of(resourceClass, method)), MethodBinding.PRIORITY);
        }
    }

    private record Key(Class<?> type, Method method) {
    }
}
