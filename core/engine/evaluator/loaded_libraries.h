#pragma once
// Which CUDA libraries this process actually loaded (two copies often exist: the toolkit's and the
// ones inside torch's site-packages; whichever loads first wins). Read with dl_iterate_phdr.
#include <string>
#include <vector>

namespace ak::eval {

struct LoadedLibrary {
    std::string role;  // "libcuda", "libnvrtc", "libcudart", "libcublas", "libcublasLt", "libcudnn", "libtorch_cuda"
    std::string path;  // as the dynamic loader reports it
};

// The loaded libraries whose file names start with one of the roles above, in load order.
std::vector<LoadedLibrary> loaded_cuda_libraries();

// "libcuda=/usr/lib/.../libcuda.so.1; libnvrtc=...; ..." ("none" when nothing is loaded).
std::string describe_loaded_libraries(const std::vector<LoadedLibrary>& libraries);

// Whether `file_name` (no directory) belongs to `role`: "libcublas.so.13" is libcublas, not libcublasLt.
bool library_has_role(const std::string& file_name, const std::string& role);

}  // namespace ak::eval
