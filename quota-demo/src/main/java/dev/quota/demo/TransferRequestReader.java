package dev.quota.demo;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.MessageBodyReader;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@link TransferRequest} body and checks every field ({@link TransferRequest#read}); a bad
 * body is a 400 problem listing each bad field. The quota module decides the transfer (its request
 * limits and its amount, together) once this has read it.
 */
@Consumes(MediaType.APPLICATION_JSON)
final class TransferRequestReader implements MessageBodyReader<TransferRequest> {

    private final Accounts accounts;

    @Context
    private @Nullable UriInfo uriInfo;

    TransferRequestReader(Accounts accounts) {
        this.accounts = accounts;
    }

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return type == TransferRequest.class;
    }

    @Override
    public TransferRequest readFrom(Class<TransferRequest> type, Type genericType, Annotation[] annotations,
                                    MediaType mediaType, MultivaluedMap<String, String> headers, InputStream body)
            throws IOException {
        TransferRequest.Checked checked = TransferRequest.read(body, accounts);
        if (checked.request() == null) {
            throw new WebApplicationException(Problem.invalid(checked.errors(), RequestPaths.path(uriInfo))
                    .toResponse());
        }
        return checked.request();
    }
}
