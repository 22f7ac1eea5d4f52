package example;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The README's application: it lists no classes, so the server finds quota's provider in WEB-INF/lib. */
@ApplicationPath("api")
public class Api extends Application {
}
