package io.shardgate.it.proxy;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves a {@link ProxyCluster} parameter (in {@code @BeforeAll} or test methods) to the one
 * cluster of the test run: started by the first class that asks, closed by JUnit when the run ends
 * (it lives in the root context's store).
 */
public final class ProxyClusterExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ProxyClusterExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ProxyCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        ProxyCluster.class,
                        key -> {
                            try {
                                return ProxyCluster.start();
                            } catch (Exception e) {
                                throw new ParameterResolutionException("cannot start MariaDB and Shardgate", e);
                            }
                        },
                        ProxyCluster.class);
    }
}
