package dev.quota.jaxrs;

import dev.quota.core.Credential;
import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.List;

/** {@link CallerResolver#apiKey()}: the key header, exactly once. */
final class ApiKeyResolver implements CallerResolver {

    static final ApiKeyResolver INSTANCE = new ApiKeyResolver();

    private ApiKeyResolver() {
    }

    @Override
    public Credential resolve(ContainerRequestContext request, Identity identity) {
        List<String> values = request.getHeaders().get(identity.header());
        if (values == null || values.isEmpty()) {
            return Credential.none();
        }
        if (values.size() > 1) {
            // two keys: which one to count is ambiguous, and picking either invites confusion attacks
            return Credential.ambiguous();
        }
        String key = values.get(0);
        return key == null || key.isEmpty() ? Credential.none() : Credential.apiKey(key);
    }
}
