package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.List;

/** {@link CallerResolver#firstOf}: the first resolver to which the request presented a credential. */
final class FirstOfResolver implements CallerResolver {

    private final List<CallerResolver> resolvers;

    FirstOfResolver(List<CallerResolver> resolvers) {
        this.resolvers = List.copyOf(resolvers);
    }

    @Override
    public Caller resolve(ContainerRequestContext request, QuotaService service, ClientAddress clientAddress) {
        Caller first = resolvers.get(0).resolve(request, service, clientAddress);
        if (first.presentedCredential()) {
            return first;
        }
        for (int i = 1; i < resolvers.size(); i++) {
            Caller caller = resolvers.get(i).resolve(request, service, clientAddress);
            if (caller.presentedCredential()) {
                return caller;
            }
        }
        return first;
    }
}
