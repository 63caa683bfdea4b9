//! The Vulkan side: one instance and device on the chosen physical device, with
//! `VK_KHR_pipeline_executable_properties` enabled, and every feature the device offers (so
//! f16, subgroup and 64-bit kernels compile as they would under wgpu). Each kernel becomes a
//! shader module, a pipeline layout for its buffers and a compute pipeline created with
//! `CAPTURE_STATISTICS` (or `CAPTURE_INTERNAL_REPRESENTATIONS`); the driver's statistics (or its
//! internal representations) are read and everything is destroyed again.
//! No queue is ever used.

use std::ffi::CString;

use ash::vk;

use crate::spirv::{Bindings, PipelineSource, spirv_for};
use crate::{InternalRepresentations, IsaError, PipelineStatistics, Representation, Statistic};

/// What the device says about itself that decides which kernels a tuner would try on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFacts {
    /// The device's name ("AMD Radeon ..." or "Null hardware (RADV GFX1100)").
    pub name: String,
    /// The driver's own name and version string.
    pub driver: String,
    /// The subgroup size compute shaders get by default.
    pub subgroup_size: u32,
    /// The largest subgroup size the device may use.
    pub max_subgroup_size: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_invocations: u32,
    /// `maxComputeSharedMemorySize`, bytes.
    pub max_workgroup_bytes: u32,
    /// Whether it is a CPU (`VK_PHYSICAL_DEVICE_TYPE_CPU`).
    pub cpu: bool,
    /// The PCI vendor id (`0x1002` AMD).
    pub vendor: u32,
    /// The subgroup-scope cooperative-matrix configurations it offers
    /// (`VK_KHR_cooperative_matrix`; empty where it has none).
    pub cooperative_matrices: Vec<MatrixConfig>,
}

/// One cooperative-matrix configuration: an `m` x `k` by `k` x `n` product of `ab` elements,
/// accumulated in `cr`, with the element types as WGSL names them (`f16`, `f32`; other types
/// as `other`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixConfig {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// The type of A and B.
    pub ab: &'static str,
    /// The type of C and the result.
    pub cr: &'static str,
}

impl DeviceFacts {
    /// Its cooperative-matrix configurations as `(m, n, k, ab, cr)`, the form the tuner's facts
    /// are built from (`CoopMatrices::from_named`).
    pub fn named_matrices(
        &self,
    ) -> impl Iterator<Item = (u32, u32, u32, &'static str, &'static str)> {
        self.cooperative_matrices
            .iter()
            .map(|c| (c.m, c.n, c.k, c.ab, c.cr))
    }
}

/// What `physical` says about itself, with its cooperative-matrix configurations.
fn device_facts(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    name: &str,
    cooperative_matrices: Vec<MatrixConfig>,
) -> DeviceFacts {
    let mut p11 = vk::PhysicalDeviceVulkan11Properties::default();
    let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
    let mut p13 = vk::PhysicalDeviceVulkan13Properties::default();
    let mut props = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut p11)
        .push_next(&mut p12)
        .push_next(&mut p13);
    // SAFETY: a valid chain of property structures for a Vulkan 1.3 device of this instance.
    unsafe { instance.get_physical_device_properties2(physical, &mut props) };
    let (limits, device_type) = (props.properties.limits, props.properties.device_type);
    let vendor = props.properties.vendor_id;
    DeviceFacts {
        name: name.to_string(),
        driver: format!("{} {}", text(&p12.driver_name), text(&p12.driver_info)),
        subgroup_size: p11.subgroup_size,
        max_subgroup_size: p13.max_subgroup_size.max(p11.subgroup_size),
        max_invocations: limits.max_compute_work_group_invocations,
        max_workgroup_bytes: limits.max_compute_shared_memory_size,
        cpu: device_type == vk::PhysicalDeviceType::CPU,
        vendor,
        cooperative_matrices,
    }
}

/// The WGSL name of a cooperative-matrix component type.
fn component(ty: vk::ComponentTypeKHR) -> &'static str {
    match ty {
        vk::ComponentTypeKHR::FLOAT16 => "f16",
        vk::ComponentTypeKHR::FLOAT32 => "f32",
        _ => "other",
    }
}

/// The subgroup-scope configurations `physical` offers where it has the extension.
fn matrix_configs(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Vec<MatrixConfig> {
    let coop = ash::khr::cooperative_matrix::Instance::new(entry, instance);
    // SAFETY: physical comes from this instance, which offers the extension's entry point.
    let Ok(configs) = (unsafe { coop.get_physical_device_cooperative_matrix_properties(physical) })
    else {
        return Vec::new();
    };
    configs
        .iter()
        .filter(|c| c.scope == vk::ScopeKHR::SUBGROUP && c.a_type == c.b_type)
        .filter(|c| c.c_type == c.result_type)
        .map(|c| MatrixConfig {
            m: c.m_size,
            n: c.n_size,
            k: c.k_size,
            ab: component(c.a_type),
            cr: component(c.c_type),
        })
        .collect()
}

/// A device that compiles kernels and reports their statistics.
pub struct Compiler {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
    facts: DeviceFacts,
}

fn vulkan(call: &'static str) -> impl Fn(vk::Result) -> IsaError {
    move |result| IsaError::Vulkan { call, result }
}

/// Text of a fixed-size C string field; lossy, since drivers' names are ASCII.
fn text(bytes: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = bytes
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Compiler {
    /// Opens the first Vulkan device whose name contains `wanted` (case-insensitive).
    pub fn open(wanted: &str) -> Result<Self, IsaError> {
        // SAFETY: loads the system's Vulkan loader; its entry points are used as documented.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| IsaError::Loader(e.to_string()))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"gpubench kernels")
            .api_version(vk::API_VERSION_1_3);
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info without layers or extensions.
        let instance =
            unsafe { entry.create_instance(&create, None) }.map_err(vulkan("vkCreateInstance"))?;
        match Self::on_instance(&entry, &instance, wanted) {
            Ok((device, facts)) => {
                let executables =
                    ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
                Ok(Self {
                    _entry: entry,
                    instance,
                    device,
                    executables,
                    facts,
                })
            }
            Err(error) => {
                // SAFETY: nothing created from the instance outlives this.
                unsafe { instance.destroy_instance(None) };
                Err(error)
            }
        }
    }

    /// The device on `instance` whose name contains `wanted`, created, and its facts.
    fn on_instance(
        entry: &ash::Entry,
        instance: &ash::Instance,
        wanted: &str,
    ) -> Result<(ash::Device, DeviceFacts), IsaError> {
        // SAFETY: the instance is valid for every query below.
        let physical = unsafe { instance.enumerate_physical_devices() }
            .map_err(vulkan("vkEnumeratePhysicalDevices"))?;
        let named: Vec<(vk::PhysicalDevice, String)> = physical
            .into_iter()
            .map(|p| {
                // SAFETY: p comes from this instance.
                let props = unsafe { instance.get_physical_device_properties(p) };
                (p, text(&props.device_name))
            })
            .collect();
        let lower = wanted.to_lowercase();
        let Some((chosen, name)) = named
            .iter()
            .find(|(_, n)| n.to_lowercase().contains(&lower))
            .cloned()
        else {
            let found = named.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>();
            let found = if found.is_empty() {
                "none".to_string()
            } else {
                found.join(", ")
            };
            return Err(IsaError::NoDevice {
                wanted: wanted.to_string(),
                found,
            });
        };
        Self::on_device((entry, instance), chosen, &name)
    }

    /// The device created on `physical` with pipeline statistics, cooperative matrices where it
    /// offers them and every feature it offers, and its facts.
    fn on_device(
        (entry, instance): (&ash::Entry, &ash::Instance),
        physical: vk::PhysicalDevice,
        name: &str,
    ) -> Result<(ash::Device, DeviceFacts), IsaError> {
        let extension = ash::khr::pipeline_executable_properties::NAME;
        // SAFETY: physical comes from this instance.
        let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }
            .map_err(vulkan("vkEnumerateDeviceExtensionProperties"))?;
        let offers = |wanted: &std::ffi::CStr| {
            extensions
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(wanted))
        };
        if !offers(extension) {
            return Err(IsaError::NoStatistics(name.to_string()));
        }
        let coop_name = ash::khr::cooperative_matrix::NAME;
        let cooperative_matrices = if offers(coop_name) {
            matrix_configs(entry, instance, physical)
        } else {
            Vec::new()
        };
        let mut coop = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut stats = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let mut features = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut v11)
            .push_next(&mut v12)
            .push_next(&mut v13)
            .push_next(&mut stats);
        if !cooperative_matrices.is_empty() {
            features = features.push_next(&mut coop);
        }
        // SAFETY: a valid chain of feature structures for a Vulkan 1.3 device.
        unsafe { instance.get_physical_device_features2(physical, &mut features) };
        let facts = device_facts(instance, physical, name, cooperative_matrices);
        // SAFETY: physical comes from this instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .unwrap_or(0) as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut names = vec![extension.as_ptr()];
        if !facts.cooperative_matrices.is_empty() {
            names.push(coop_name.as_ptr());
        }
        // Every feature the device offers is enabled, as queried (the chain is reused).
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&names)
            .push_next(&mut features);
        // SAFETY: the create info and its chain are valid for this device.
        let device = unsafe { instance.create_device(physical, &create, None) }
            .map_err(vulkan("vkCreateDevice"))?;
        Ok((device, facts))
    }

    /// What the device says about itself.
    pub fn facts(&self) -> &DeviceFacts {
        &self.facts
    }

    /// Compiles `pipeline` and returns the driver's statistics for it.
    pub fn statistics(
        &self,
        pipeline: &PipelineSource<'_>,
    ) -> Result<PipelineStatistics, IsaError> {
        let flags = vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
        self.compile(pipeline, flags, |p| self.read_statistics(p))
    }

    /// Compiles as [`Compiler::statistics`] does and returns the driver's internal
    /// representations of the pipeline (RADV: NIR, ACO's IR, the disassembly).
    pub fn internal_representations(
        &self,
        pipeline: &PipelineSource<'_>,
    ) -> Result<InternalRepresentations, IsaError> {
        let flags = vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
        self.compile(pipeline, flags, |p| {
            self.read_representations(p, pipeline.name)
        })
    }

    /// `pipeline` in SPIR-V, created with `flags`, handed to `read`; every object is destroyed
    /// after.
    fn compile<T>(
        &self,
        pipeline: &PipelineSource<'_>,
        flags: vk::PipelineCreateFlags,
        read: impl FnOnce(vk::Pipeline) -> Result<T, IsaError>,
    ) -> Result<T, IsaError> {
        let (words, bindings) = spirv_for(pipeline)?;
        let entry = CString::new(pipeline.entry).map_err(|_| IsaError::Shader {
            kernel: pipeline.name.to_string(),
            reason: "entry point name holds a NUL".to_string(),
        })?;
        let layouts = self.set_layouts(&bindings)?;
        let result = self.with_pipeline((&words, &entry), &layouts, flags, read);
        for layout in layouts {
            // SAFETY: created above on this device; no pipeline uses it any more.
            unsafe { self.device.destroy_descriptor_set_layout(layout, None) };
        }
        result
    }

    /// One descriptor set layout per group up to the highest used (empty for the gaps).
    fn set_layouts(&self, bindings: &Bindings) -> Result<Vec<vk::DescriptorSetLayout>, IsaError> {
        let groups = bindings.keys().map(|(g, _)| g + 1).max().unwrap_or(0);
        let mut layouts = Vec::new();
        for group in 0..groups {
            let entries: Vec<vk::DescriptorSetLayoutBinding<'_>> = bindings
                .iter()
                .filter(|((g, _), _)| *g == group)
                .map(|(&(_, binding), &uniform)| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(binding)
                        .descriptor_type(if uniform {
                            vk::DescriptorType::UNIFORM_BUFFER
                        } else {
                            vk::DescriptorType::STORAGE_BUFFER
                        })
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries);
            // SAFETY: a valid create info on this device.
            match unsafe { self.device.create_descriptor_set_layout(&info, None) } {
                Ok(layout) => layouts.push(layout),
                Err(e) => {
                    for layout in layouts {
                        // SAFETY: created above, unused.
                        unsafe { self.device.destroy_descriptor_set_layout(layout, None) };
                    }
                    return Err(vulkan("vkCreateDescriptorSetLayout")(e));
                }
            }
        }
        Ok(layouts)
    }

    fn with_pipeline<T>(
        &self,
        (words, entry): (&[u32], &std::ffi::CStr),
        layouts: &[vk::DescriptorSetLayout],
        flags: vk::PipelineCreateFlags,
        read: impl FnOnce(vk::Pipeline) -> Result<T, IsaError>,
    ) -> Result<T, IsaError> {
        let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(layouts);
        // SAFETY: valid create infos on this device; every object is destroyed below.
        let layout = unsafe { self.device.create_pipeline_layout(&layout_info, None) }
            .map_err(vulkan("vkCreatePipelineLayout"))?;
        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: as above; the words are naga's SPIR-V.
        let module = match unsafe { self.device.create_shader_module(&module_info, None) } {
            Ok(module) => module,
            Err(e) => {
                // SAFETY: created above, unused.
                unsafe { self.device.destroy_pipeline_layout(layout, None) };
                return Err(vulkan("vkCreateShaderModule")(e));
            }
        };
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(entry);
        let create = [vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(layout)];
        // SAFETY: as above.
        let created = unsafe {
            self.device
                .create_compute_pipelines(vk::PipelineCache::null(), &create, None)
        };
        let result = match created {
            Ok(pipelines) => {
                let read = match pipelines.first() {
                    Some(&p) => read(p),
                    None => Err(vulkan("vkCreateComputePipelines")(
                        vk::Result::ERROR_UNKNOWN,
                    )),
                };
                for pipeline in pipelines {
                    // SAFETY: created above, never bound.
                    unsafe { self.device.destroy_pipeline(pipeline, None) };
                }
                read
            }
            Err((_, e)) => Err(vulkan("vkCreateComputePipelines")(e)),
        };
        // SAFETY: created above; the pipelines using them are gone.
        unsafe {
            self.device.destroy_shader_module(module, None);
            self.device.destroy_pipeline_layout(layout, None);
        }
        result
    }

    /// Every internal representation of every executable of `pipeline` (created with
    /// `CAPTURE_INTERNAL_REPRESENTATIONS`): the driver is asked for their sizes, then for their
    /// data.
    fn read_representations(
        &self,
        pipeline: vk::Pipeline,
        kernel: &str,
    ) -> Result<InternalRepresentations, IsaError> {
        let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        // SAFETY: the pipeline was created on this device with the capture flag.
        let executables = unsafe { self.executables.get_pipeline_executable_properties(&info) }
            .map_err(vulkan("vkGetPipelineExecutablePropertiesKHR"))?;
        let mut out = InternalRepresentations {
            kernel: kernel.to_string(),
            representations: Vec::new(),
        };
        for (index, executable) in (0u32..).zip(&executables) {
            let info = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(index);
            out.representations
                .extend(self.executable_representations(&info, &text(&executable.name))?);
        }
        Ok(out)
    }

    /// One executable's representations: the first call gives their names and sizes (no data
    /// pointers), the second fills buffers of those sizes.
    fn executable_representations(
        &self,
        info: &vk::PipelineExecutableInfoKHR<'_>,
        executable: &str,
    ) -> Result<Vec<Representation>, IsaError> {
        let call = "vkGetPipelineExecutableInternalRepresentationsKHR";
        // SAFETY: a valid executable of a pipeline created with the capture flag.
        let mut sized = unsafe {
            self.executables
                .get_pipeline_executable_internal_representations(info)
        }
        .map_err(vulkan(call))?;
        let mut buffers: Vec<Vec<u8>> = sized.iter().map(|r| vec![0u8; r.data_size]).collect();
        for (rep, buffer) in sized.iter_mut().zip(&mut buffers) {
            rep.p_data = buffer.as_mut_ptr().cast();
        }
        let mut count = u32::try_from(sized.len()).unwrap_or(u32::MAX);
        // SAFETY: `count` structures, each pointing at a buffer of the size the driver gave,
        // alive until after the call.
        let result = unsafe {
            (self
                .executables
                .fp()
                .get_pipeline_executable_internal_representations_khr)(
                self.device.handle(),
                info,
                &mut count,
                sized.as_mut_ptr(),
            )
        };
        if result != vk::Result::SUCCESS {
            return Err(vulkan(call)(result));
        }
        Ok(sized
            .iter()
            .zip(buffers)
            .take(count as usize)
            .map(|(rep, bytes)| Representation {
                executable: executable.to_string(),
                name: text(&rep.name),
                description: text(&rep.description),
                text: (rep.is_text == vk::TRUE).then(|| {
                    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                    String::from_utf8_lossy(&bytes[..end]).into_owned()
                }),
            })
            .collect())
    }

    fn read_statistics(&self, pipeline: vk::Pipeline) -> Result<PipelineStatistics, IsaError> {
        let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS on this device.
        let executables = unsafe { self.executables.get_pipeline_executable_properties(&info) }
            .map_err(vulkan("vkGetPipelineExecutablePropertiesKHR"))?;
        let mut out = PipelineStatistics {
            executables: executables.iter().map(|e| text(&e.name)).collect(),
            statistics: Vec::new(),
        };
        for index in 0..executables.len() as u32 {
            let info = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(index);
            // SAFETY: as above, for an executable the driver listed.
            let stats = unsafe { self.executables.get_pipeline_executable_statistics(&info) }
                .map_err(vulkan("vkGetPipelineExecutableStatisticsKHR"))?;
            for s in stats {
                // SAFETY: the union is read by the format the driver gives for it.
                let value = unsafe {
                    match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => f64::from(s.value.b32),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64 as f64,
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64 as f64,
                        _ => s.value.f64,
                    }
                };
                out.statistics.push(Statistic {
                    name: text(&s.name),
                    value,
                });
            }
        }
        Ok(out)
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        // SAFETY: every object made on the device was destroyed after use; nothing was
        // submitted, so nothing is in flight.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
