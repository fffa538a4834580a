#include "engine/evaluator/loaded_libraries.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace ak::eval {
namespace {

TEST(LoadedLibraries, RolesMatchWholeLibraryNamesOnly) {
    EXPECT_TRUE(library_has_role("libcublas.so.13", "libcublas"));
    EXPECT_FALSE(library_has_role("libcublasLt.so.13", "libcublas"));
    EXPECT_TRUE(library_has_role("libcublasLt.so.13", "libcublasLt"));
    EXPECT_TRUE(library_has_role("libcuda.so.1", "libcuda"));
    EXPECT_FALSE(library_has_role("libcudart.so.13", "libcuda"));
    EXPECT_TRUE(library_has_role("libcudart.so.13", "libcudart"));
    EXPECT_FALSE(library_has_role("libnvrtc-builtins.so.13.0", "libnvrtc"));
    EXPECT_TRUE(library_has_role("libnvrtc.so", "libnvrtc"));
    EXPECT_FALSE(library_has_role("libcudnn_ops.so.9", "libcudnn"));
}

TEST(LoadedLibraries, ALibraryLoadedAtRunTimeIsListedWithItsPath) {
    void* handle = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!handle) GTEST_SKIP() << "libnvrtc.so.13 cannot be loaded here: " << dlerror();
    const auto libs = loaded_cuda_libraries();
    const auto it = std::find_if(libs.begin(), libs.end(), [](const LoadedLibrary& l) { return l.role == "libnvrtc"; });
    ASSERT_NE(it, libs.end()) << describe_loaded_libraries(libs);
    EXPECT_NE(it->path.find("libnvrtc.so"), std::string::npos);
    EXPECT_NE(describe_loaded_libraries(libs).find("libnvrtc=" + it->path), std::string::npos);
    dlclose(handle);
}

TEST(LoadedLibraries, NothingLoadedIsSaidPlainly) { EXPECT_EQ(describe_loaded_libraries({}), "none"); }

}  // namespace
}  // namespace ak::eval
