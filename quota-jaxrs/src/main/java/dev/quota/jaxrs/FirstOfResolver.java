package dev.quota.jaxrs;

import dev.quota.core.Credential;
import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.List;

/** {@link CallerResolver#firstOf}: the first credential any resolver finds. */
final class FirstOfResolver implements CallerResolver {

    private final List<CallerResolver> resolvers;

    FirstOfResolver(List<CallerResolver> resolvers) {
        this.resolvers = List.copyOf(resolvers);
    }

    @Override
    public Credential resolve(ContainerRequestContext request, Identity identity) {
        for (CallerResolver resolver : resolvers) {
            Credential credential = resolver.resolve(request, identity);
            if (!(credential instanceof Credential.None)) {
                return credential;
            }
        }
        return Credential.none();
    }
}
