"""JAX Playground: see how JAX traces, lowers, compiles and transforms your code."""
