#include <cstdio>
int main() { std::puts("tirc"); return 0; }
